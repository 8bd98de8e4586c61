// The demo's store: the one place its state changes, and what its subscribers hear.
import { beforeEach, describe, expect, it } from 'vitest';
import { store, type State } from '../src/store.ts';

const settings = { issuer: 'http://127.0.0.1', clientId: 'maqam-demo', mediaSongs: [], featuredArtists: [] };
const album = (id: string) => ({ view: 'album', album: { id: { value: id } }, tracks: [] }) as never;

describe('the demo store', () => {
  beforeEach(() => store.init('ar', settings, { view: 'home' }));

  it('tells each subscriber of a change once, and of a change that changes nothing not at all', () => {
    const heard: [string, string][] = [];
    store.subscribe((state, previous) => heard.push([previous.status, state.status]));
    store.update({ status: 'one' });
    store.update({ status: 'one' });
    store.update((state) => ({ status: `${state.status} two` }));
    expect(heard).toEqual([['', ''], ['', 'one'], ['one', 'one two']]);
  });

  it('lets a subscriber change the state in turn: the others hear the state it made, once', () => {
    const first: string[] = [];
    const second: string[] = [];
    store.subscribe((state) => {
      first.push(state.status);
      if (state.status === 'asked') store.update({ status: 'answered' });
    });
    store.subscribe((state: State) => second.push(state.status));
    store.update({ status: 'asked' });
    expect(first).toEqual(['', 'asked', 'answered']);
    // The second was not yet told of 'asked' when it was answered: it is told of the answer only.
    expect(second).toEqual(['', 'answered']);
    expect(store.state.status).toBe('answered');
  });

  it('drops an answer for a page no longer on screen, even the same page shown again', () => {
    store.show(album('album-1'));
    const asked = store.state.view!;
    store.show(album('album-1'));
    expect(store.patchView(asked, () => ({ tracks: [{} as never] }))).toBe(false);
    expect(store.state.view).toMatchObject({ tracks: [] });
    const shown = store.state.view!;
    expect(store.patchView(shown, () => ({ tracks: [{} as never] }))).toBe(true);
    expect(store.state.view).toMatchObject({ tracks: [{}], serial: shown.serial });
  });
});
