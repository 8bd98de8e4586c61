// A film: its poster and backdrop, name, year, length, genres and age
// rating, leads and description, its audio and subtitle languages, and Play
// (from where the viewer left off) where it has video; the songs of its
// soundtrack, which play like any other list; its cast.
import { NotFoundError, type Movie, type Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { markSaved } from '../components/likes.ts';
import { playButtons, trackList } from '../components/song-list.ts';
import { icon } from '../components/icons.ts';
import { castSection, genreNames, titleHeader, titleMissing } from '../components/titles.ts';
import { clock, languageNames, longDuration, t, year } from '../format.ts';
import { link, type Route } from '../router.ts';
import { collect, maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';
import { hasVideo } from '../video/video-player.ts';
import { resumePoint } from './video-page.ts';

export interface MovieView {
  view: 'movie';
  /** Null when the API says there is no such film for this viewer. */
  movie: Movie | null;
  soundtrack: Song[];
  /** Where the viewer left off (ms), else 0. */
  resumeMs: number;
}

export async function load(route: Extract<Route, { view: 'movie' }>): Promise<MovieView> {
  const locale = store.state.lang;
  try {
    const playable = hasVideo(route.id);
    const [movie, soundtrack, resumeMs] = await Promise.all([
      maqam.video.movies.get(route.id, { locale }),
      collect(maqam.video.soundtrack({ movieId: route.id }, { locale, pageSize: 50 })),
      playable ? resumePoint({ view: 'player', kind: 'movie', id: route.id }) : 0,
    ]);
    await markSaved(soundtrack, []);
    return { view: 'movie', movie, soundtrack, resumeMs };
  } catch (error) {
    if (error instanceof NotFoundError) return { view: 'movie', movie: null, soundtrack: [], resumeMs: 0 };
    throw error;
  }
}

export function render(view: Shown<MovieView>) {
  const { movie } = view;
  if (!movie) return titleMissing();
  const text = t();
  const facts = [year(movie.releaseDate), longDuration(movie.durationMs), ...genreNames(movie.genres)];
  const play = hasVideo(movie.id.value)
    ? html`<div class="actions"><a href=${link({ view: 'player', kind: 'movie', id: movie.id.value })} class="button primary play-title" data-testid="play-movie">
        ${icon('play')}${` ${view.resumeMs > 0 ? text.resumeFrom(clock(view.resumeMs)) : text.watchMovie}`}</a></div>`
    : nothing;
  const languages = html`
    ${play}
    <dl class="languages" data-testid="languages">
      ${movie.audioLanguages.length > 0 ? html`<div><dt>${text.audio}</dt><dd data-testid="audio-languages">${languageNames(movie.audioLanguages)}</dd></div>` : nothing}
      ${movie.subtitleLanguages.length > 0 ? html`<div><dt>${text.subtitles}</dt><dd data-testid="subtitle-languages">${languageNames(movie.subtitleLanguages)}</dd></div>` : nothing}
    </dl>`;
  return html`
    ${titleHeader({ item: movie, eyebrow: text.kindMovie, facts, testId: 'movie-title', extra: languages })}
    ${view.soundtrack.length > 0 ? html`
      <section aria-labelledby="soundtrack-heading" class="shelf">
        <h3 id="soundtrack-heading">${text.songsFromMovie}</h3>
        ${playButtons(view.soundtrack, 'soundtrack')}
        ${trackList(view.soundtrack, { showAlbumArt: true, testId: 'soundtrack' })}
      </section>` : nothing}
    ${castSection(movie.cast)}`;
}

export const moviePage = { load, render };
