import { describe, expect, it } from 'vitest';
import { demoMusicDurations, knownSongs } from '@maqam/server';
import { MAQAMAT, planPiece, renderPiece, SAMPLE_RATE } from '../../src/demo/maqam-music.ts';

/** The strength of `hz` in `samples` (Goertzel): how much of the signal is at that pitch. */
function strength(samples: Int16Array, hz: number): number {
  const coefficient = 2 * Math.cos((2 * Math.PI * hz) / SAMPLE_RATE);
  let previous = 0;
  let before = 0;
  for (const sample of samples) {
    const current = sample + coefficient * previous - before;
    before = previous;
    previous = current;
  }
  return Math.sqrt(previous * previous + before * before - coefficient * previous * before) / samples.length;
}

// Its packaging is tested where it runs: the demo app's browser test plays an album once `maqam serve --demo` has packaged it.
describe('the demo\'s music', () => {
  it('is the same piece for the same number, as long as its plan says, and not silent', () => {
    const wav = renderPiece(1);
    expect(renderPiece(1).equals(wav)).toBe(true);
    expect(wav.subarray(0, 4).toString()).toBe('RIFF');
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    expect(Math.round((samples.length / SAMPLE_RATE) * 1000)).toBeGreaterThanOrEqual(planPiece(1).durationMs - 1);
    expect(Math.max(...samples.subarray(SAMPLE_RATE * 10, SAMPLE_RATE * 11).map(Math.abs))).toBeGreaterThan(10_000);
  });

  it('plays its maqam\'s quarter tones: Rast\'s third three quarter tones above the second, not a semitone or a tone', () => {
    const plan = planPiece(0);
    expect(plan.maqam).toBe(MAQAMAT[0]);
    expect(plan.maqam.name).toBe('Rast');
    const wav = renderPiece(0);
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    // The neutral third (350 cents) sounds; the equal-tempered thirds on either side of it (300 and 400) do not, as much.
    const at = (cents: number) => strength(samples, plan.tonicHz * 2 ** (cents / 1200));
    expect(at(350)).toBeGreaterThan(2 * at(300));
    expect(at(350)).toBeGreaterThan(2 * at(400));
  });

  it('gives each known song the length of its piece, so the catalog\'s durations are those of the audio', () => {
    const durations = demoMusicDurations();
    expect(Object.keys(durations).sort()).toEqual(knownSongs().map((song) => song.id).sort());
    expect(Object.values(durations).every((ms) => ms >= 30_000 && ms <= 120_000)).toBe(true);
  });
});
