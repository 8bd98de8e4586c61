import { describe, expect, it } from 'vitest';
import { DEMO_FEATURED_MOVIES, DEMO_FEATURED_SHOWS, knownSongs } from '@maqam/server';
import { demoVideoLimit } from '../src/commands/serve.ts';

// `maqam serve --demo` gives clips to MAQAM_DEMO_MUSIC's share of its video titles: the tests that ask for little music
// (the CLI's none, the demo app's browser test two songs) do not wait on minutes of video encoding.
describe('the demo\'s video titles, bounded as its music is', () => {
  const all = DEMO_FEATURED_SHOWS.length + DEMO_FEATURED_MOVIES.length;

  it('are all of them by default (MAQAM_DEMO_MUSIC=1000) and with every known song', () => {
    expect(all).toBe(15);
    expect(demoVideoLimit({ demoMusicSongs: 1000 })).toBe(all);
    expect(demoVideoLimit({ demoMusicSongs: knownSongs().length })).toBe(all);
  });

  it('are none with MAQAM_DEMO_MUSIC=0 and one for a test\'s two songs', () => {
    expect(demoVideoLimit({ demoMusicSongs: 0 })).toBe(0);
    expect(demoVideoLimit({ demoMusicSongs: 1 })).toBe(1);
    expect(demoVideoLimit({ demoMusicSongs: 2 })).toBe(1);
    expect(demoVideoLimit({ demoMusicSongs: Math.ceil(knownSongs().length / 2) })).toBe(Math.ceil(all / 2));
  });
});
