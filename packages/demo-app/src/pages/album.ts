// An album: its cover, credits and facts, Play and Shuffle, its songs by disc.
import type { Album, Song } from '@maqam/sdk';
import { html } from 'lit-html';
import { cover } from '../components/cards.ts';
import { heart, markSaved } from '../components/likes.ts';
import { playButtons, trackList } from '../components/song-list.ts';
import { listSeparator, longDuration, number, t, year } from '../format.ts';
import { link, type Route } from '../router.ts';
import { collect, maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';

export interface AlbumView {
  view: 'album';
  album: Album;
  tracks: Song[];
}

export async function load(route: Extract<Route, { view: 'album' }>): Promise<AlbumView> {
  const locale = store.state.lang;
  const [album, tracks] = await Promise.all([maqam.albums.get(route.id, { locale }), collect(maqam.albums.tracks(route.id, { locale, pageSize: 100 }))]);
  await markSaved(tracks, [album]);
  return { view: 'album', album, tracks };
}

export function render(view: Shown<AlbumView>) {
  const text = t();
  const { album } = view;
  const discs = [...new Set(view.tracks.map((song) => song.discNumber))];
  const facts = [year(album.releaseDate), text.songCount(album.trackCount, number(album.trackCount)), longDuration(album.totalDurationMs), album.label, ...album.genres];
  return html`
    <header class="profile">
      ${cover(album.artwork, '', 'cover large')}
      <div>
        <p class="eyebrow">${text.albumTypes[album.albumType]}</p>
        <div class="title-row">
          <h2 tabindex="-1" dir="auto" data-testid="album-title">${album.title.value}</h2>
          ${heart('album', album.id.value, album.title.value, 'large')}
        </div>
        <p>${album.artists.map((ref, i) => html`${i > 0 ? listSeparator() : ''}<a href=${link({ view: 'artist', id: ref.id.value })}><bdi>${ref.name.value}</bdi></a>`)}</p>
        <p class="meta">${facts.filter(Boolean).join(' · ')}</p>
        ${playButtons(view.tracks, 'album')}
      </div>
    </header>
    ${discs.map((disc) => html`
      <section aria-label=${discs.length > 1 ? text.disc(number(disc)) : text.tracks}>
        ${discs.length > 1 ? html`<h3>${text.disc(number(disc))}</h3>` : html`<h3 class="visually-hidden">${text.tracks}</h3>`}
        ${trackList(view.tracks.filter((song) => song.discNumber === disc), { numbered: true, testId: 'tracks', menuKey: `disc-${disc}` })}
      </section>`)}`;
}

export const albumPage = { load, render };
