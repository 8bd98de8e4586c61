// Covers, and the cards of the shelves and grids: artists, albums, playlists.
import type { Album, Artist, Playlist } from '@maqam/sdk';
import { html, type TemplateResult } from 'lit-html';
import { compact, number, t, year } from '../format.ts';
import { link } from '../router.ts';
import { heart } from './likes.ts';

/** A cover or portrait, or a blank square of the same size when there is none. */
export function cover(images: { url: string }[] | undefined, alt: string, className: string) {
  const url = images?.[0]?.url;
  return url
    ? html`<img src=${url} alt=${alt} class=${className} loading="lazy" width="300" height="300">`
    : html`<div class=${`${className} blank`} role="img" aria-label=${alt}></div>`;
}

/** A titled row of cards (a grid on a desktop, a row that scrolls sideways on a phone). */
export function shelf(title: string, testId: string, cards: TemplateResult[]) {
  const id = `shelf-${testId}`;
  return html`
    <section aria-labelledby=${id} class="shelf">
      <h3 id=${id}>${title}</h3>
      ${cardList(testId, cards)}
    </section>`;
}

export const cardList = (testId: string, cards: TemplateResult[]) =>
  html`<ul class="cards" data-testid=${testId}>${cards.map((card) => html`<li>${card}</li>`)}</ul>`;

export function artistCard(artist: Artist) {
  return html`
    <a href=${link({ view: 'artist', id: artist.id.value })} class="card artist-card" data-testid="artist-link">
      ${cover(artist.artwork, '', 'portrait')}
      <span class="card-title" dir="auto">${artist.name.value}</span>
      <span class="meta">${t().listeners(compact(Number(artist.monthlyListeners)))}</span>
    </a>`;
}

export function albumCard(album: Album) {
  return html`
    <div class="card-wrap">
      <a href=${link({ view: 'album', id: album.id.value })} class="card" data-testid="album-link" data-album-type=${album.albumType}>
        ${cover(album.artwork, '', 'cover')}
        <span class="card-title" dir="auto">${album.title.value}</span>
        <span class="meta">${`${t().albumTypes[album.albumType]} · ${year(album.releaseDate)}`}</span>
      </a>
      ${heart('album', album.id.value, album.title.value, 'on-card')}
    </div>`;
}

export function playlistCard(playlist: Playlist) {
  const text = t();
  return html`
    <a href=${link({ view: 'playlist', id: playlist.id.value })} class="card" data-testid="playlist-link">
      ${cover(playlist.coverArtwork, '', 'cover')}
      <span class="card-title" dir="auto">${playlist.name.value}</span>
      <span class="meta">${`${text.visibility[playlist.visibility]} · ${text.songCount(playlist.itemCount, number(playlist.itemCount))}`}</span>
    </a>`;
}
