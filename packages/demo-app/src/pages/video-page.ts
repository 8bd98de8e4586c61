// Watching a film or an episode (#/watch/movie/ID, #/watch/episode/ID): the
// player, resumed where the viewer left off, and under it what plays (its
// show, season and number, its facts and description), the next episode and
// the way back to the title's page. The player itself is video/.
import { NotFoundError, type Episode, type Movie, type ProgressReport, type Show } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { ageBadge, artworkOf, titleMissing } from '../components/titles.ts';
import { longDuration, number, t, year } from '../format.ts';
import { link, type Route } from '../router.ts';
import { maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';
import { videoStage } from '../video/video-controls.ts';
import { flushWatchReports, hasVideo, pendingWatchReports } from '../video/video-player.ts';

type PlayerRoute = Extract<Route, { view: 'player' }>;

export interface VideoView {
  view: 'player';
  kind: PlayerRoute['kind'];
  id: string;
  /** The film, or the episode and its show; all null when the API says there is no such title for this viewer. */
  movie: Movie | null;
  episode: Episode | null;
  show: Show | null;
  /** The episode after this one (by season, then number), when it has video. */
  next: Episode | null;
  /** Where to start, in ms: the viewer's place in this title, else 0. */
  resumeMs: number;
}

const isTitle = (route: PlayerRoute) => (report: ProgressReport) =>
  (route.kind === 'movie' ? report.movieId?.value : report.episodeId?.value) === route.id;

/**
 * The viewer's place in the title: reports left from before (a moment ago,
 * before a reload, offline) are sent first, then continue watching says
 * where it is (a place another device reported too). A report that could not
 * be sent still counts on this device.
 */
export async function resumePoint(route: PlayerRoute): Promise<number> {
  await flushWatchReports().catch(() => undefined);
  const waiting = (await pendingWatchReports()).filter(isTitle(route)).at(-1);
  if (waiting) return waiting.positionMs;
  let pageToken: string | undefined;
  for (let page = 0; page < 4; page++) {
    const { items, nextPageToken } = await maqam.library.listContinueWatching({ pageSize: 50, pageToken });
    const item = items.find((entry) => (route.kind === 'movie' ? entry.movie?.id.value : entry.episode?.id.value) === route.id);
    if (item) return item.positionMs;
    if (!nextPageToken) break;
    pageToken = nextPageToken;
  }
  return 0;
}

/** The episode after `episode`: the next of its season, else the first of the next season. */
async function nextEpisodeOf(episode: Episode, show: Show): Promise<Episode | null> {
  const locale = store.state.lang;
  for await (const other of maqam.video.seasons.episodes(episode.seasonId.value, { locale, pageSize: 50 })) {
    if (other.episodeNumber > episode.episodeNumber) return other;
  }
  const season = show.seasons.filter((s) => s.seasonNumber > episode.seasonNumber).sort((a, b) => a.seasonNumber - b.seasonNumber)[0];
  if (!season) return null;
  const { items } = await maqam.video.seasons.get(season.id.value, { locale, pageSize: 1 });
  return items[0] ?? null;
}

export async function load(route: PlayerRoute): Promise<VideoView> {
  const locale = store.state.lang;
  const view: VideoView = { view: 'player', kind: route.kind, id: route.id, movie: null, episode: null, show: null, next: null, resumeMs: 0 };
  try {
    if (route.kind === 'movie') {
      const [movie, resumeMs] = await Promise.all([maqam.video.movies.get(route.id, { locale }), resumePoint(route)]);
      return { ...view, movie, resumeMs };
    }
    const [episode, resumeMs] = await Promise.all([maqam.video.episodes.get(route.id, { locale }), resumePoint(route)]);
    const show = await maqam.video.shows.get(episode.showId.value, { locale });
    const next = await nextEpisodeOf(episode, show);
    return { ...view, episode, show, resumeMs, next: next && hasVideo(next.id.value) ? next : null };
  } catch (error) {
    if (error instanceof NotFoundError) return view;
    throw error;
  }
}

/** An episode's place in its show: "S1 · E3". */
export const episodeCode = (episode: Pick<Episode, 'seasonNumber' | 'episodeNumber'>) => t().episodeCode(number(episode.seasonNumber), number(episode.episodeNumber));

export function render(view: Shown<VideoView>) {
  const { movie, episode, show } = view;
  const item = movie ?? episode;
  if (!item) return titleMissing();
  const text = t();
  const heading = episode && show ? `${show.title.value}، ${episodeCode(episode)}: ${episode.title.value}` : item.title.value;
  // On the controls' bar: the show's name, where the episode is, its title.
  const headline = episode && show
    ? html`<bdi class="headline-show">${show.title.value}</bdi> <span class="episode-code">${episodeCode(episode)}</span> <bdi>${episode.title.value}</bdi>`
    : html`<bdi class="headline-show">${item.title.value}</bdi>`;
  const backLink = episode
    ? { href: link({ view: 'show', id: episode.showId.value, season: episode.seasonNumber }), label: text.backToShow }
    : { href: link({ view: 'movie', id: view.id }), label: text.backToMovie };
  const facts = [movie ? year(movie.releaseDate) : '', episode ? episodeCode(episode) : '', longDuration(item.durationMs)].filter(Boolean).join(' · ');
  const rating = movie?.ageRating ?? episode?.ageRating ?? show?.ageRating;
  return html`
    <section class="watching" aria-labelledby="video-title">
      ${videoStage(store.state.video, { heading, headline, poster: artworkOf(item.artwork, 'wide')?.url, next: view.next, backLink })}
      <div class="watch-info">
        ${show ? html`<p class="eyebrow"><a href=${link({ view: 'show', id: show.id.value })} dir="auto" data-testid="video-show">${show.title.value}</a></p>` : html`<p class="eyebrow">${text.kindMovie}</p>`}
        <h2 id="video-title" tabindex="-1" dir="auto" data-testid="video-title">${item.title.value}</h2>
        <p class="meta title-facts"><span>${facts}</span>${ageBadge(rating)}</p>
        ${item.description ? html`<p class="watch-description" dir="auto">${item.description.value}</p>` : nothing}
        <div class="actions">
          ${view.next ? html`
            <a class="button primary" href=${link({ view: 'player', kind: 'episode', id: view.next.id.value })} data-testid="next-link">
              ${`${text.nextEpisode} · ${episodeCode(view.next)}`}</a>` : nothing}
          <a class="button" href=${backLink.href} data-testid="back-link">${backLink.label}</a>
        </div>
      </div>
    </section>`;
}

export const videoPage = { load, render };
