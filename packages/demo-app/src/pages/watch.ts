// Watch: the video's home, beside the music's. A Ramadan series in the
// spotlight (a tap from playing, where it has video), what the viewer is in
// the middle of, then shelves of series, films, titles for the whole family
// and documentaries, each a poster card with its year and age rating.
import type { Episode, Movie, Show, VideoTitle } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { shelf } from '../components/cards.ts';
import { continueWatchingShelf, loadContinueWatching, type WatchingEntry } from '../components/continue-watching.ts';
import { icon } from '../components/icons.ts';
import { ageBadge, artworkOf, picture, posterCard, titleLink, yearOf } from '../components/titles.ts';
import { clock, number, t } from '../format.ts';
import { link } from '../router.ts';
import { maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';
import { hasVideo } from '../video/video-player.ts';
import { episodeCode } from './video-page.ts';

export interface WatchView {
  view: 'watch';
  shows: Show[];
  movies: Movie[];
  /** Continue watching. */
  watching: WatchingEntry[];
  /** The spotlight show's first episode (what its Play starts when the viewer has not begun it). */
  leadEpisode: Episode | null;
}

/**
 * The titles the Watch home shows, as a streaming app's editors would pick
 * them: the API has no operation that lists titles (search finds them by
 * name and cast, and a title page leads to its cast's other work), so the
 * demo names the showcase titles of its catalog (demo-video.ts) and reads
 * them in one batch per kind. A title the viewer may not see (above their
 * parental cap) or that has left the catalog is not in the answer's
 * titles, and no shelf shows it.
 */
const PICKS = {
  shows: [
    'show-beit-al-karma', 'show-diwaniyat-bu-saleh', 'show-thill-al-madina', 'show-ala-darb-al-qawafil', 'show-hikayat-al-tarab', 'show-fariq-al-fanous',
  ],
  movies: [
    'movie-najmat-al-sabah', 'movie-sutouh-al-qahira', 'movie-akhir-qitar-ila-aswan', 'movie-rimal-al-rub-al-khali', 'movie-sani-al-oud',
    'movie-the-pearl-diver', 'movie-al-sikka-al-tawila', 'movie-layl-al-hamra', 'movie-fanous-jeddi',
  ],
};

export async function load(): Promise<WatchView> {
  const { lang: locale, settings } = store.state;
  // The server names its showcase (the titles it gives video first); an older one does not.
  const [shows, movies, watching] = await Promise.all([
    maqam.video.shows.batchGet(settings.featuredShows ?? PICKS.shows, { locale }),
    maqam.video.movies.batchGet(settings.featuredMovies ?? PICKS.movies, { locale }),
    loadContinueWatching(),
  ]);
  const view: WatchView = {
    view: 'watch',
    shows: [...shows.values()].flatMap((result) => (result.show ? [result.show] : [])),
    movies: [...movies.values()].flatMap((result) => (result.movie ? [result.movie] : [])),
    watching,
    leadEpisode: null,
  };
  const firstSeason = leadOf(view)?.show?.seasons[0];
  if (firstSeason) view.leadEpisode = (await maqam.video.seasons.get(firstSeason.id.value, { locale, pageSize: 1 })).items[0] ?? null;
  return view;
}

const titlesOf = (view: WatchView) => ({ shows: view.shows.map((show): VideoTitle => ({ show })), movies: view.movies.map((movie): VideoTitle => ({ movie })) });

/** The spotlight's title: the Ramadan series, else the first. */
function leadOf(view: WatchView): VideoTitle | undefined {
  const { shows, movies } = titlesOf(view);
  return shows.find((title) => title.show!.genres.includes('ramadan')) ?? [...shows, ...movies][0];
}

/** The spotlight's Play: where the viewer is in it (continue watching), else its start, when that has video. */
function spotlightPlay(view: WatchView, title: VideoTitle) {
  const text = t();
  const entry = view.watching.find((other) => (title.show ? other.item.episode?.showId.value === title.show.id.value : other.item.movie?.id.value === title.movie!.id.value));
  const episode = title.show ? entry?.item.episode ?? view.leadEpisode : null;
  const target = episode ? { kind: 'episode' as const, id: episode.id.value } : title.movie ? { kind: 'movie' as const, id: title.movie.id.value } : null;
  if (!target || !hasVideo(target.id)) return nothing;
  const position = entry?.item.positionMs ?? 0;
  const label = episode
    ? (position > 0 ? text.resumeEpisode(episodeCode(episode), clock(position)) : `${text.watchEpisode} · ${episodeCode(episode)}`)
    : (position > 0 ? text.resumeFrom(clock(position)) : text.watchMovie);
  return html`<a href=${link({ view: 'player', ...target })} class="button primary play-title" data-testid="spotlight-play">${icon('play')}${` ${label}`}</a>`;
}

const forTheFamily = (item: Show | Movie) => item.ageRating === 'AGE_RATING_ALL' || item.ageRating === 'AGE_RATING_7';

/** The first title, wide: its backdrop, what it is, its name, facts and description, Play, and the way to its page. */
function spotlight(view: WatchView, title: VideoTitle) {
  const text = t();
  const play = spotlightPlay(view, title);
  const item: Show | Movie = title.show ?? title.movie!;
  const kind = title.show ? (title.show.genres.includes('ramadan') ? text.ramadanSeries : text.kindShow) : text.kindMovie;
  const facts = [yearOf(title), title.show ? text.seasonCount(title.show.seasons.length, number(title.show.seasons.length)) : ''].filter(Boolean).join(' · ');
  return html`
    <section class="spotlight" aria-labelledby="spotlight-title" data-testid="spotlight">
      ${picture(artworkOf(item.artwork, 'wide'), 'backdrop')}
      <div class="spotlight-text">
        <p class="eyebrow">${kind}</p>
        <h3 id="spotlight-title" dir="auto">${item.title.value}</h3>
        <p class="meta title-facts"><span>${facts}</span>${ageBadge(item.ageRating)}</p>
        ${item.description ? html`<p class="spotlight-description" dir="auto">${item.description.value}</p>` : nothing}
        <div class="actions">
          ${play}
          <a href=${titleLink(title)} class=${play === nothing ? 'button primary' : 'button'} data-testid="spotlight-link">${title.show ? text.showDetails : text.movieDetails}</a>
        </div>
      </div>
    </section>`;
}

export function render(view: Shown<WatchView>) {
  const text = t();
  const { shows, movies } = titlesOf(view);
  const all = [...shows, ...movies];
  const lead = leadOf(view);
  const family = all.filter((title) => forTheFamily(title.show ?? title.movie!));
  const documentaries = all.filter((title) => (title.show ?? title.movie!).genres.includes('documentary'));
  return html`
    <h2 tabindex="-1" class="visually-hidden">${text.watch}</h2>
    ${lead ? spotlight(view, lead) : html`<p class="meta" data-testid="no-titles">${text.noTitles}</p>`}
    ${continueWatchingShelf(view)}
    ${shows.length > 0 ? shelf(text.series, 'watch-shows', shows.map(posterCard)) : nothing}
    ${movies.length > 0 ? shelf(text.films, 'watch-movies', movies.map(posterCard)) : nothing}
    ${family.length > 0 ? shelf(text.forTheFamily, 'watch-family', family.map(posterCard)) : nothing}
    ${documentaries.length > 0 ? shelf(text.documentaries, 'watch-documentaries', documentaries.map(posterCard)) : nothing}`;
}

export const watchPage = { load, render };
