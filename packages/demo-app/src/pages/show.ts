// A show: its poster and backdrop, name, facts, leads and description, and
// Play (where the viewer is in it, else its first episode); a season picker
// and the chosen season's episodes, page by page, each a tap from playing
// where it has video (the one in progress shows how far); the songs of its
// soundtrack, which play like any other list; its cast.
import { NotFoundError, type ContinueWatchingItem, type Episode, type Season, type Show, type ShowSeason, type Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { watchingOfShow } from '../components/continue-watching.ts';
import { icon } from '../components/icons.ts';
import { markSaved } from '../components/likes.ts';
import { playButtons, trackList } from '../components/song-list.ts';
import { ageBadge, artworkOf, castSection, genreNames, names, picture, titleHeader, titleMissing } from '../components/titles.ts';
import { clock, day, longDuration, number, t, year } from '../format.ts';
import { link, type Route } from '../router.ts';
import { act, collect, maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';
import { iso } from '../texts.ts';
import { hasVideo } from '../video/video-player.ts';
import { episodeCode } from './video-page.ts';

export interface ShowView {
  view: 'show';
  /** Null when the API says there is no such show for this viewer. */
  show: Show | null;
  /** The season picked (shown pressed at once), and the one whose episodes are on screen. */
  chosen: string;
  season: Season | null;
  episodes: Episode[];
  /** The next page of the season's episodes; empty on the last. */
  episodesToken: string;
  soundtrack: Song[];
  /** The show's place in continue watching: its episode in progress, or the next one. */
  watching: ContinueWatchingItem | null;
}

const EPISODE_PAGE_SIZE = 10;

const missing = (): ShowView => ({ view: 'show', show: null, chosen: '', season: null, episodes: [], episodesToken: '', soundtrack: [], watching: null });

export async function load(route: Extract<Route, { view: 'show' }>): Promise<ShowView> {
  const locale = store.state.lang;
  let show: Show;
  let soundtrack: Song[];
  let watching: ContinueWatchingItem | undefined;
  try {
    [show, soundtrack, watching] = await Promise.all([
      maqam.video.shows.get(route.id, { locale }),
      collect(maqam.video.soundtrack({ showId: route.id }, { locale, pageSize: 50 })),
      watchingOfShow(route.id),
    ]);
  } catch (error) {
    if (error instanceof NotFoundError) return missing();
    throw error;
  }
  // The season the address names (a shared link, a reload, the other language), else the first.
  const chosen = show.seasons.find((season) => season.seasonNumber === route.season) ?? show.seasons[0];
  const [page] = await Promise.all([
    chosen ? maqam.video.seasons.get(chosen.id.value, { locale, pageSize: EPISODE_PAGE_SIZE }) : null,
    markSaved(soundtrack, []),
  ]);
  return {
    view: 'show', show, chosen: chosen?.id.value ?? '', season: page?.season ?? null, episodes: page?.items ?? [], episodesToken: page?.nextPageToken ?? '', soundtrack,
    watching: watching ?? null,
  };
}

/** Another season's first episodes, in place; the address names the season, so Back leaves the show and a reload keeps it. */
async function chooseSeason(view: Shown<ShowView>, season: ShowSeason) {
  const id = season.id.value;
  if (!store.patchView(view, () => ({ chosen: id }))) return;
  const target = link({ view: 'show', id: view.show!.id.value, season: season.seasonNumber });
  history.replaceState(null, '', target);
  store.update({ route: { view: 'show', id: view.show!.id.value, season: season.seasonNumber } });
  let page;
  try {
    page = await maqam.video.seasons.get(id, { locale: store.state.lang, pageSize: EPISODE_PAGE_SIZE });
  } catch (error) {
    // The season on screen stays, and its chip shows it again.
    store.patchView(view, (current) => (current.chosen === id ? { chosen: current.season?.id.value ?? '' } : {}));
    throw error;
  }
  // Another season picked meanwhile: its answer shows, not this one.
  store.patchView(view, (current) => (current.chosen === id ? { season: page.season, episodes: page.items, episodesToken: page.nextPageToken } : {}));
}

async function moreEpisodes(view: Shown<ShowView>) {
  const seasonId = view.season!.id.value;
  const page = await maqam.video.seasons.get(seasonId, { locale: store.state.lang, pageSize: EPISODE_PAGE_SIZE, pageToken: view.episodesToken });
  store.patchView(view, (current) => (current.season?.id.value === seasonId && current.episodesToken === view.episodesToken
    ? { episodes: [...current.episodes, ...page.items], episodesToken: page.nextPageToken }
    : {}));
}

const playerLink = (episode: Episode) => link({ view: 'player', kind: 'episode', id: episode.id.value });

/** An episode's still: where it has video, a link that plays it, with how far the viewer got. */
function episodeStill(episode: Episode, watching: ContinueWatchingItem | null) {
  const text = t();
  const still = picture(artworkOf(episode.artwork, 'wide'), 'still');
  if (!hasVideo(episode.id.value)) return still;
  const position = watching?.episode?.id.value === episode.id.value ? watching.positionMs : 0;
  return html`
    <a href=${playerLink(episode)} class="still-frame" data-testid="play-episode"
      aria-label=${`${position > 0 ? text.resumeEpisode(episodeCode(episode), clock(position)) : `${text.watchEpisode} · ${episodeCode(episode)}`}: ${iso(episode.title.value)}`}>
      ${still}<span class="play-mark" aria-hidden="true">${icon('play')}</span>
      ${position > 0 ? html`<progress class="watched" max=${episode.durationMs} .value=${position} aria-hidden="true"></progress>` : nothing}
    </a>`;
}

/** The show's Play: the episode it is at in continue watching, else the first of the season on screen, when that has video. */
function showPlay(view: Shown<ShowView>) {
  const text = t();
  const episode = view.watching?.episode ?? (view.season?.seasonNumber === view.show?.seasons[0]?.seasonNumber ? view.episodes[0] : undefined);
  if (!episode || !hasVideo(episode.id.value)) return undefined;
  const position = view.watching?.episode?.id.value === episode.id.value ? view.watching.positionMs : 0;
  return html`
    <div class="actions">
      <a href=${playerLink(episode)} class="button primary play-title" data-testid="play-show">
        ${icon('play')}${` ${position > 0 ? text.resumeEpisode(episodeCode(episode), clock(position)) : `${text.watchEpisode} · ${episodeCode(episode)}`}`}</a>
    </div>`;
}

function episodeRow(episode: Episode, watching: ContinueWatchingItem | null) {
  const text = t();
  const facts = [longDuration(episode.durationMs), episode.airDate ? day(episode.airDate) : ''].filter(Boolean).join(' · ');
  return html`
    <li class="episode" data-episode=${episode.episodeNumber}>
      ${episodeStill(episode, watching)}
      <div class="episode-text">
        <h4><span class="episode-number">${number(episode.episodeNumber)}</span> <bdi class="episode-title">${episode.title.value}</bdi></h4>
        <p class="meta">${facts}${episode.ageRating ? ageBadge(episode.ageRating) : nothing}</p>
        ${episode.description ? html`<p class="episode-description" dir="auto">${episode.description.value}</p>` : nothing}
        ${episode.guestCast.length > 0 ? html`<p class="meta">${text.guestStars(names(episode.guestCast))}</p>` : nothing}
      </div>
    </li>`;
}

function seasonSection(view: Shown<ShowView>, show: Show) {
  const text = t();
  const { season } = view;
  const loading = season !== null && season.id.value !== view.chosen;
  return html`
    <section aria-labelledby="episodes-heading" class="shelf">
      <h3 id="episodes-heading">${text.episodes}</h3>
      ${show.seasons.length > 1 ? html`
        <div class="chips" role="group" aria-label=${text.seasons}>${show.seasons.map((s) => html`
          <button type="button" class="chip" aria-pressed=${String(s.id.value === view.chosen)} data-testid=${`season-${s.seasonNumber}`}
            @click=${() => void act(() => chooseSeason(view, s))}>${text.season(number(s.seasonNumber))}</button>`)}
        </div>` : nothing}
      ${season ? html`
        <div class="season-summary" aria-busy=${String(loading)}>
          <p><strong dir="auto" data-testid="season-title">${season.title.value}</strong></p>
          <p class="meta">${[season.airDate ? year(season.airDate) : '', text.episodeCount(season.episodeCount, number(season.episodeCount))].filter(Boolean).join(' · ')}</p>
          ${season.description ? html`<p dir="auto">${season.description.value}</p>` : nothing}
        </div>` : nothing}
      ${view.episodes.length > 0
        ? html`<ol class="episodes" data-testid="episodes" aria-busy=${String(loading)}>${view.episodes.map((episode) => episodeRow(episode, view.watching))}</ol>`
        : html`<p class="meta" data-testid="no-episodes">${text.noEpisodes}</p>`}
      ${view.episodesToken && !loading
        ? html`<button type="button" data-testid="more-episodes" @click=${() => void act(() => moreEpisodes(view))}>${text.moreEpisodes}</button>`
        : nothing}
    </section>`;
}

export function render(view: Shown<ShowView>) {
  const { show } = view;
  if (!show) return titleMissing();
  const text = t();
  const facts = [year(String(show.releaseYear)), text.seasonCount(show.seasons.length, number(show.seasons.length)), ...genreNames(show.genres)];
  return html`
    ${titleHeader({ item: show, eyebrow: show.genres.includes('ramadan') ? text.ramadanSeries : text.kindShow, facts, testId: 'show-title', extra: showPlay(view) })}
    ${show.seasons.length > 0 ? seasonSection(view, show) : nothing}
    ${view.soundtrack.length > 0 ? html`
      <section aria-labelledby="soundtrack-heading" class="shelf">
        <h3 id="soundtrack-heading">${text.songsFromShow}</h3>
        ${playButtons(view.soundtrack, 'soundtrack')}
        ${trackList(view.soundtrack, { showAlbumArt: true, testId: 'soundtrack' })}
      </section>` : nothing}
    ${castSection(show.cast)}`;
}

export const showPage = { load, render };
