// An artist: profile and Follow, popular songs, the discography filtered by
// type, and related artists, page by page.
import type { Album, AlbumType, Artist, Song } from '@maqam/sdk';
import { html, nothing } from 'lit-html';
import { albumCard, artistCard, cardList, cover } from '../components/cards.ts';
import { followButton, markFollowing, markSaved } from '../components/likes.ts';
import { playButtons, trackList } from '../components/song-list.ts';
import { compact, t } from '../format.ts';
import type { Route } from '../router.ts';
import { act, maqam } from '../session.ts';
import { store, type Shown } from '../store.ts';

export interface ArtistView {
  view: 'artist';
  artist: Artist;
  top: Song[];
  albums: Album[];
  albumType: AlbumType | '';
  albumsToken: string;
  related: Artist[];
  relatedToken: string;
}

const RELATED_PAGE_SIZE = 6;
const DISCOGRAPHY_PAGE_SIZE = 12;
const FILTERS: (AlbumType | '')[] = ['', 'ALBUM_TYPE_ALBUM', 'ALBUM_TYPE_SINGLE', 'ALBUM_TYPE_EP', 'ALBUM_TYPE_COMPILATION'];

export async function load(route: Extract<Route, { view: 'artist' }>): Promise<ArtistView> {
  const locale = store.state.lang;
  const [artist, top, discography, related] = await Promise.all([
    maqam.artists.get(route.id, { locale }),
    maqam.artists.listTopTracks(route.id, { locale, pageSize: 10 }),
    maqam.artists.listAlbums(route.id, { locale, pageSize: DISCOGRAPHY_PAGE_SIZE }),
    maqam.artists.listRelated(route.id, { locale, pageSize: RELATED_PAGE_SIZE }),
  ]);
  await Promise.all([markSaved(top.items, discography.items), markFollowing(artist.id.value)]);
  return {
    view: 'artist', artist, top: top.items, albums: discography.items, albumType: '', albumsToken: discography.nextPageToken,
    related: related.items, relatedToken: related.nextPageToken,
  };
}

async function filterDiscography(view: Shown<ArtistView>, type: AlbumType | '') {
  const page = await maqam.artists.listAlbums(view.artist.id.value, { locale: store.state.lang, pageSize: DISCOGRAPHY_PAGE_SIZE, ...(type ? { albumType: type } : {}) });
  store.patchView(view, () => ({ albumType: type, albums: page.items, albumsToken: page.nextPageToken }));
}

async function moreAlbums(view: Shown<ArtistView>) {
  const page = await maqam.artists.listAlbums(view.artist.id.value, {
    locale: store.state.lang, pageSize: DISCOGRAPHY_PAGE_SIZE, pageToken: view.albumsToken, ...(view.albumType ? { albumType: view.albumType } : {}),
  });
  store.patchView(view, (current) => ({ albums: [...current.albums, ...page.items], albumsToken: page.nextPageToken }));
}

async function moreRelated(view: Shown<ArtistView>) {
  const page = await maqam.artists.listRelated(view.artist.id.value, { locale: store.state.lang, pageSize: RELATED_PAGE_SIZE, pageToken: view.relatedToken });
  store.patchView(view, (current) => ({ related: [...current.related, ...page.items], relatedToken: page.nextPageToken }));
}

export function render(view: Shown<ArtistView>) {
  const text = t();
  const { artist } = view;
  const facts = [text.listeners(compact(Number(artist.monthlyListeners))), text.followers(compact(Number(artist.followerCount))), ...artist.genres];
  return html`
    <header class="profile">
      ${cover(artist.artwork, '', 'portrait large')}
      <div>
        <p class="eyebrow">${artist.isVerified ? `✓ ${text.verified}` : text.artist}</p>
        <h2 tabindex="-1" dir="auto" data-testid="artist-name">${artist.name.value}</h2>
        ${artist.name.originalValue !== artist.name.value ? html`<p class="original" lang="">${artist.name.originalValue}</p>` : nothing}
        <p class="meta">${facts.join(' · ')}</p>
        ${followButton(artist)}
        ${artist.bio ? html`<p class="bio">${artist.bio.value}</p>` : nothing}
      </div>
    </header>
    <section aria-labelledby="top-heading">
      <h3 id="top-heading">${text.popular}</h3>
      ${playButtons(view.top, 'top')}
      ${trackList(view.top, { showAlbumArt: true, testId: 'top-tracks' })}
    </section>
    <section aria-labelledby="discography-heading" class="shelf">
      <h3 id="discography-heading">${text.discography}</h3>
      <div class="chips" role="group" aria-label=${text.albumType}>${FILTERS.map((type) => html`
        <button type="button" class="chip" aria-pressed=${String(view.albumType === type)} data-testid=${`filter-${type || 'all'}`}
          @click=${() => void act(() => filterDiscography(view, type))}>${type ? text.albumTypesPlural[type] : text.all}</button>`)}
      </div>
      ${view.albums.length > 0 ? cardList('discography', view.albums.map(albumCard)) : html`<p class="meta">${text.noAlbums}</p>`}
      ${view.albumsToken ? html`<button type="button" data-testid="more-albums" @click=${() => void act(() => moreAlbums(view))}>${text.more}</button>` : nothing}
    </section>
    <section aria-labelledby="related-heading" class="shelf">
      <h3 id="related-heading">${text.related}</h3>
      ${view.related.length > 0 ? cardList('related', view.related.map(artistCard)) : html`<p class="meta">${text.noRelated}</p>`}
      ${view.relatedToken
        ? html`<button type="button" data-testid="more" @click=${() => void act(() => moreRelated(view))}>${text.more}</button>`
        : view.related.length > 0 ? html`<p class="meta" data-testid="no-more">${text.noMore}</p>` : nothing}
    </section>`;
}

export const artistPage = { load, render };
