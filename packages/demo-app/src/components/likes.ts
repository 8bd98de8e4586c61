// What the user likes and follows: hearts on songs and albums, the Follow
// button of an artist. A change shows at once, is saved in the background,
// and is put back with a message when the save fails.
import type { Album, Artist, Song } from '@maqam/sdk';
import { PermissionDeniedError } from '@maqam/sdk';
import { html } from 'lit-html';
import { t } from '../format.ts';
import { maqam, say } from '../session.ts';
import { setHas, store } from '../store.ts';

/** Asks which of these songs and albums the user has liked (100 ids a call), so their hearts show it. */
export async function markSaved(songs: readonly Song[], albums: readonly Album[]) {
  const ids = [
    ...[...new Set(songs.map((song) => song.id.value))].map((id) => ['song', id] as const),
    ...[...new Set(albums.map((album) => album.id.value))].map((id) => ['album', id] as const),
  ];
  const calls: Promise<void>[] = [];
  for (let i = 0; i < ids.length; i += 100) {
    const batch = ids.slice(i, i + 100);
    const of = (kind: 'song' | 'album') => batch.filter(([k]) => k === kind).map(([, id]) => id);
    calls.push(maqam.library.check({ songs: of('song'), albums: of('album') }).then(({ songs: songStates, albums: albumStates }) => {
      store.update((state) => {
        let saved = state.saved;
        for (const [id, answer] of songStates) saved = setHas(saved, `song:${id}`, answer.saved);
        for (const [id, answer] of albumStates) saved = setHas(saved, `album:${id}`, answer.saved);
        return { saved };
      });
    }));
  }
  await Promise.all(calls);
}

/** Asks whether the user follows this artist, so the Follow button shows it. */
export async function markFollowing(artistId: string) {
  const states = await maqam.library.isFollowing([artistId]);
  store.update((state) => ({ following: setHas(state.following, artistId, states.get(artistId)?.following === true) }));
}

/** A heart that likes a song or album, or unlikes it. */
export function heart(kind: 'song' | 'album', id: string, title: string, className = '') {
  const key = `${kind}:${id}`;
  const saved = store.state.saved.has(key);
  const text = t();
  return html`<button type="button" class=${`heart ${className}`} data-heart=${key} data-testid=${`heart-${kind}`} aria-pressed=${String(saved)}
    aria-label=${saved ? text.unlike(title) : text.like(title)} @click=${() => void toggleSaved(kind, id, title)}>${saved ? '♥' : '♡'}</button>`;
}

async function toggleSaved(kind: 'song' | 'album', id: string, title: string) {
  const key = `${kind}:${id}`;
  const saving = !store.state.saved.has(key);
  store.update((state) => ({ saved: setHas(state.saved, key, saving), status: '' }));
  try {
    const items = kind === 'song' ? { songs: [id] } : { albums: [id] };
    if (saving) {
      const { songs, albums } = await maqam.library.save(items);
      const result = (kind === 'song' ? songs : albums).get(id);
      if (result?.error) throw new Error(result.error.message);
    } else {
      await maqam.library.remove(items);
    }
  } catch (error) {
    store.update((state) => ({ saved: setHas(state.saved, key, !saving) }));
    say(error instanceof PermissionDeniedError ? t().needsWrite : t().couldNotSave(title));
  }
}

/** Follow or unfollow the artist. Its name is what it shows (the state is aria-pressed), so a voice command of the visible word works. */
export function followButton(artist: Artist) {
  const following = store.state.following.has(artist.id.value);
  return html`<button type="button" class="follow" data-testid="follow" aria-pressed=${String(following)} @click=${() => void toggleFollowing(artist)}>${
    following ? `✓ ${t().followingNow}` : t().follow}</button>`;
}

async function toggleFollowing(artist: Artist) {
  const id = artist.id.value;
  const following = !store.state.following.has(id);
  store.update((state) => ({ following: setHas(state.following, id, following), status: '' }));
  try {
    if (following) {
      const result = (await maqam.library.follow([id])).get(id);
      if (result?.error) throw new Error(result.error.message);
    } else {
      await maqam.library.unfollow([id]);
    }
  } catch (error) {
    store.update((state) => ({ following: setHas(state.following, id, !following) }));
    say(error instanceof PermissionDeniedError ? t().needsWrite : t().couldNotSave(artist.name.value));
  }
}
