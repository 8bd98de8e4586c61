// Watch: the video's home, beside the music's. A Ramadan series in the
// spotlight, then shelves of series, films, titles for the whole family and
// documentaries, each a poster card with its year and age rating.
import type { Movie, Show, VideoTitle } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { shelf } from '../components/cards.ts';
import { ageBadge, artworkOf, picture, posterCard, titleLink, yearOf } from '../components/titles.ts';
import { number, t } from '../format.ts';
import { maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';

export interface WatchView {
  view: 'watch';
  shows: Show[];
  movies: Movie[];
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
  const locale = store.state.lang;
  const [shows, movies] = await Promise.all([maqam.video.shows.batchGet(PICKS.shows, { locale }), maqam.video.movies.batchGet(PICKS.movies, { locale })]);
  return {
    view: 'watch',
    shows: [...shows.values()].flatMap((result) => (result.show ? [result.show] : [])),
    movies: [...movies.values()].flatMap((result) => (result.movie ? [result.movie] : [])),
  };
}

const forTheFamily = (item: Show | Movie) => item.ageRating === 'AGE_RATING_ALL' || item.ageRating === 'AGE_RATING_7';

/** The first title, wide: its backdrop, what it is, its name, facts and description, and the way to its page. */
function spotlight(title: VideoTitle) {
  const text = t();
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
        <a href=${titleLink(title)} class="button primary" data-testid="spotlight-link">${title.show ? text.showDetails : text.movieDetails}</a>
      </div>
    </section>`;
}

export function render(view: Shown<WatchView>) {
  const text = t();
  const shows = view.shows.map((show): VideoTitle => ({ show }));
  const movies = view.movies.map((movie): VideoTitle => ({ movie }));
  const all = [...shows, ...movies];
  const lead = shows.find((title) => title.show!.genres.includes('ramadan')) ?? all[0];
  const family = all.filter((title) => forTheFamily(title.show ?? title.movie!));
  const documentaries = all.filter((title) => (title.show ?? title.movie!).genres.includes('documentary'));
  return html`
    <h2 tabindex="-1" class="visually-hidden">${text.watch}</h2>
    ${lead ? spotlight(lead) : html`<p class="meta" data-testid="no-titles">${text.noTitles}</p>`}
    ${shows.length > 0 ? shelf(text.series, 'watch-shows', shows.map(posterCard)) : nothing}
    ${movies.length > 0 ? shelf(text.films, 'watch-movies', movies.map(posterCard)) : nothing}
    ${family.length > 0 ? shelf(text.forTheFamily, 'watch-family', family.map(posterCard)) : nothing}
    ${documentaries.length > 0 ? shelf(text.documentaries, 'watch-documentaries', documentaries.map(posterCard)) : nothing}`;
}

export const watchPage = { load, render };
