// Continue watching: the films and episodes the viewer is in the middle of
// (and each show's next episode), latest first, as wide cards with the
// picture, how far the viewer got, and "S1 · E3" for an episode; a tap
// resumes it (or opens its page, where the demo has no video of it), × takes
// it off the row (the place is kept: it comes back when watched again).
import type { ContinueWatchingItem, Episode, Movie, Show } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { number, t } from '../format.ts';
import { link } from '../router.ts';
import { act, maqam, say } from '../session.ts';
import { store, type Shown, type View } from '../store.ts';
import { flushWatchReports, hasVideo } from '../video/video-player.ts';
import { icon } from './icons.ts';
import { artworkOf, picture } from './titles.ts';

export interface WatchingEntry {
  item: ContinueWatchingItem;
  /** An episode's show (its name heads the card). */
  show: Show | null;
}

/** The row's first page, with the shows of its episodes; the places reported just before (leaving the player) sent first. */
export async function loadContinueWatching(): Promise<WatchingEntry[]> {
  const locale = store.state.lang;
  await flushWatchReports().catch(() => undefined);
  const { items } = await maqam.library.listContinueWatching({ pageSize: 20, locale });
  const showIds = [...new Set(items.flatMap((item) => (item.episode ? [item.episode.showId.value] : [])))];
  const shows = showIds.length > 0 ? await maqam.video.shows.batchGet(showIds, { locale }) : new Map<string, { show?: Show }>();
  return items.map((item) => ({ item, show: item.episode ? shows.get(item.episode.showId.value)?.show ?? null : null }));
}

/** A show's entry of continue watching (its episode in progress, or the next one), if it has one. */
export async function watchingOfShow(showId: string): Promise<ContinueWatchingItem | undefined> {
  await flushWatchReports().catch(() => undefined);
  const { items } = await maqam.library.listContinueWatching({ pageSize: 50, locale: store.state.lang });
  return items.find((item) => item.episode?.showId.value === showId);
}

const titleOf = (entry: WatchingEntry): Movie | Episode => entry.item.movie ?? entry.item.episode!;

/** What the card names first: a film's title, an episode's show. */
const nameOf = (entry: WatchingEntry) => (entry.item.movie ? entry.item.movie.title.value : entry.show?.title.value ?? entry.item.episode!.title.value);

/** Takes an entry off the row at once; put back if the API refuses. */
async function hide<V extends View & { watching: WatchingEntry[] }>(view: Shown<V>, entry: WatchingEntry) {
  const title = titleOf(entry);
  const without = (list: WatchingEntry[]) => list.filter((other) => titleOf(other).id.value !== title.id.value);
  store.patchView(view, (current) => ({ watching: without(current.watching) }) as Partial<V>);
  await act(async () => {
    try {
      await maqam.library.hideFromContinueWatching(entry.item.movie ? { movies: [title.id.value] } : { episodes: [title.id.value] });
    } catch (error) {
      store.patchView(view, (current) => ({ watching: [...current.watching, entry] }) as Partial<V>);
      throw error;
    }
    say(t().hidden(nameOf(entry)));
  });
}

function card<V extends View & { watching: WatchingEntry[] }>(view: Shown<V>, entry: WatchingEntry) {
  const text = t();
  const { item } = entry;
  const title = titleOf(entry);
  const episode = item.episode;
  const name = nameOf(entry);
  const left = Math.max(1, Math.round((title.durationMs - item.positionMs) / 60_000));
  // A title without video here (a show's next episode the demo has no clip of) opens its page instead.
  const playable = hasVideo(title.id.value);
  const target = playable
    ? link({ view: 'player', kind: item.movie ? 'movie' : 'episode', id: title.id.value })
    : episode ? link({ view: 'show', id: episode.showId.value, season: episode.seasonNumber }) : link({ view: 'movie', id: title.id.value });
  // The show's backdrop stands for an episode without a still of its own.
  const image = artworkOf(title.artwork, 'wide') ?? artworkOf(entry.show?.artwork ?? [], 'wide');
  return html`
    <div class="card-wrap watch-entry" data-title=${title.id.value}>
      <a href=${target} class="card watch-card" data-testid="continue-link">
        <span class="still-frame">
          ${picture(image, 'still')}
          ${playable ? html`<span class="play-mark" aria-hidden="true">${icon('play')}</span>` : nothing}
          ${item.positionMs > 0
            ? html`<progress class="watched" max=${title.durationMs} .value=${item.positionMs} aria-label=${text.minutesLeft(left, number(left))}></progress>`
            : nothing}
        </span>
        <span class="card-title" dir="auto">${name}</span>
        <span class="meta watch-line">
          ${episode
            ? html`<span class="episode-code" title=${text.episodeCodeLong(number(episode.seasonNumber), number(episode.episodeNumber))}>${text.episodeCode(number(episode.seasonNumber), number(episode.episodeNumber))}</span>
              <bdi class="episode-name">${episode.title.value}</bdi>`
            : html`<span>${item.positionMs > 0 ? text.minutesLeft(left, number(left)) : text.kindMovie}</span>`}
        </span>
      </a>
      <button type="button" class="hide-entry" aria-label=${text.hideFromRow(name)} title=${text.hideFromRow(name)} data-testid="hide-continue"
        @click=${() => void hide(view, entry)}>×</button>
    </div>`;
}

/** The row, when there is anything in it. */
export function continueWatchingShelf<V extends View & { watching: WatchingEntry[] }>(view: Shown<V>) {
  if (view.watching.length === 0) return nothing;
  const text = t();
  return html`
    <section aria-labelledby="shelf-continue" class="shelf">
      <h3 id="shelf-continue">${text.continueWatching}</h3>
      <ul class="cards wide" data-testid="continue-watching">${view.watching.map((entry) => html`<li>${card(view, entry)}</li>`)}</ul>
    </section>`;
}
