import { seededRandom } from '../import/demo-catalog.ts';

/**
 * Original music for the demo catalog, composed and rendered here: a
 * plucked melody (a Karplus-Strong string, close to an oud or a qanun) in
 * one of the maqamat, over a drone on its tonic and a darbuka playing one
 * of the common rhythms. Each maqam keeps its quarter tones: Rast's third
 * and seventh, Bayati's and Saba's second sit a quarter tone flat, which no
 * equal-tempered synthesizer note can play. The same piece number always
 * gives the same music, so a demo catalog sounds the same on every machine.
 */

/** A maqam's scale from its tonic, in cents (100 to the equal-tempered semitone, so 150 is three quarter tones). */
export interface Maqam {
  readonly name: string;
  readonly cents: readonly number[];
}

export const MAQAMAT: readonly Maqam[] = [
  { name: 'Rast', cents: [0, 200, 350, 500, 700, 900, 1050, 1200] },
  { name: 'Bayati', cents: [0, 150, 300, 500, 700, 800, 1000, 1200] },
  { name: 'Hijaz', cents: [0, 100, 400, 500, 700, 800, 1000, 1200] },
  { name: 'Saba', cents: [0, 150, 300, 400, 700, 800, 1000, 1200] },
  { name: 'Nahawand', cents: [0, 200, 300, 500, 700, 800, 1100, 1200] },
  { name: 'Kurd', cents: [0, 100, 300, 500, 700, 800, 1000, 1200] },
];

/** A rhythm (iqa') of eight eighth notes: D is the low dum, T the high tak, '.' a rest. */
const RHYTHMS = ['DT.TD.T.', 'DD.TD.T.', 'DT.DD.T.', 'D..TD.T.'] as const; // maqsum, baladi, saidi, wahda

export const SAMPLE_RATE = 44_100;

/** What a piece is, before a sample is rendered: enough to know its length. */
export interface PiecePlan {
  readonly maqam: Maqam;
  readonly tonicHz: number;
  readonly rhythm: string;
  readonly beatsPerMinute: number;
  /** Bars of eight eighth notes. */
  readonly bars: number;
  readonly durationMs: number;
}

/**
 * The plan of piece `number`: a maqam, a tonic, a rhythm and a tempo, and a
 * length of 16 to 28 bars in whole phrases of four (40 s to a minute and a
 * half): packaging a minute of audio at every tier takes about six seconds
 * of this machine's CPU, and the demo packages some fifty songs.
 */
export function planPiece(number: number): PiecePlan {
  const random = seededRandom(0x6d61_7161 ^ Math.imul(number + 1, 0x9e37_79b1));
  const maqam = MAQAMAT[number % MAQAMAT.length]!;
  // Tonics of the oud's comfortable range: D3 to G3, where the maqamat are usually played.
  const tonicHz = 146.83 * 2 ** (random.int(0, 5) / 12);
  const rhythm = random.pick(RHYTHMS);
  const beatsPerMinute = random.int(84, 120);
  const bars = 4 * random.int(4, 7);
  const eighthMs = 60_000 / beatsPerMinute / 2;
  const durationMs = Math.round(bars * 8 * eighthMs + 2500); // the last note rings out
  return { maqam, tonicHz, rhythm, beatsPerMinute, bars, durationMs };
}

/** Renders piece `number` as 16-bit mono PCM in a WAV file's bytes. */
export function renderPiece(number: number): Buffer {
  const plan = planPiece(number);
  const random = seededRandom(0x6f75_6421 ^ Math.imul(number + 1, 0x85eb_ca6b));
  const samples = new Float32Array(Math.ceil((plan.durationMs / 1000) * SAMPLE_RATE));
  const eighth = (60 / plan.beatsPerMinute / 2) * SAMPLE_RATE;
  const frequency = (degree: number) => {
    const octave = Math.floor(degree / 7);
    const step = ((degree % 7) + 7) % 7;
    return plan.tonicHz * 2 ** ((octave * 1200 + plan.maqam.cents[step]!) / 1200);
  };

  drone(samples, plan.tonicHz / 2, 0.05);
  // The melody: phrases of four bars that wander the scale by small steps, lean on the tonic and
  // the fifth, and come home at each phrase's end; long notes are struck again (the oud's tremolo).
  let degree = 0;
  for (let bar = 0; bar < plan.bars; bar++) {
    const entering = bar < 2; // the drum plays alone, then the melody comes in
    const closing = bar % 4 === 3;
    let eighthInBar = 0;
    while (eighthInBar < 8) {
      const length = closing && eighthInBar >= 4 ? 8 - eighthInBar : random.pick([1, 1, 2, 2, 2, 3, 4]);
      const notes = Math.min(length, 8 - eighthInBar);
      if (!entering) {
        const target = closing && eighthInBar + notes >= 8 ? 0 : degree + random.pick([-2, -1, -1, 0, 1, 1, 2, 3, -3]);
        degree = Math.max(-3, Math.min(9, random.chance(0.15) ? 4 : target));
        const start = Math.round((bar * 8 + eighthInBar) * eighth);
        const strikes = notes >= 3 && random.chance(0.5) ? notes * 2 : 1;
        for (let s = 0; s < strikes; s++) {
          pluck(samples, start + Math.round((s * notes * eighth) / strikes), frequency(degree), notes * eighth, s === 0 ? 0.55 : 0.35, random);
        }
      }
      eighthInBar += notes;
    }
    drum(samples, plan.rhythm, Math.round(bar * 8 * eighth), eighth, random);
  }
  return wav(samples);
}

/** A Karplus-Strong string: noise through a delay line of one period that averages as it goes round. */
function pluck(out: Float32Array, start: number, hz: number, lengthSamples: number, gain: number, random: ReturnType<typeof seededRandom>): void {
  const period = SAMPLE_RATE / hz;
  const size = Math.ceil(period) + 2;
  const line = new Float32Array(size);
  for (let i = 0; i < size; i++) line[i] = random.next() * 2 - 1;
  // A fractional delay (linear interpolation) keeps quarter tones in tune: rounding the period would move them up to 8 cents.
  const fraction = period - Math.floor(period);
  const ring = Math.min(out.length - start, Math.round(lengthSamples + SAMPLE_RATE * 0.6));
  let read = 0;
  let previous = 0;
  for (let i = 0; i < ring; i++) {
    const a = line[read % size]!;
    const b = line[(read + 1) % size]!;
    const value = a + (b - a) * fraction;
    const damped = 0.996 * 0.5 * (value + previous);
    previous = value;
    line[(read + Math.floor(period)) % size] = damped;
    read++;
    // Stopped after its note, gently: a player lifts the finger.
    const release = i > lengthSamples ? Math.max(0, 1 - (i - lengthSamples) / (SAMPLE_RATE * 0.6)) : 1;
    out[start + i]! += value * gain * release;
  }
}

/** A soft drone on the tonic and its fifth, as a bowed or sung ison under the melody. */
function drone(out: Float32Array, hz: number, gain: number): void {
  const fade = SAMPLE_RATE * 2;
  for (let i = 0; i < out.length; i++) {
    const t = i / SAMPLE_RATE;
    const envelope = Math.min(1, i / fade, (out.length - i) / fade);
    out[i]! += gain * envelope * (Math.sin(2 * Math.PI * hz * t) + 0.5 * Math.sin(2 * Math.PI * hz * 1.5 * t) + 0.25 * Math.sin(2 * Math.PI * hz * 2 * t));
  }
}

/** One bar of the darbuka: the dum a falling low tone, the tak a short bright click of noise. */
function drum(out: Float32Array, rhythm: string, start: number, eighth: number, random: ReturnType<typeof seededRandom>): void {
  for (let step = 0; step < 8; step++) {
    const stroke = rhythm[step];
    const at = start + Math.round(step * eighth);
    if (stroke === 'D') {
      const length = Math.min(out.length - at, Math.round(SAMPLE_RATE * 0.35));
      let phase = 0;
      for (let i = 0; i < length; i++) {
        phase += (2 * Math.PI * (70 + 60 * Math.exp(-i / 900))) / SAMPLE_RATE;
        out[at + i]! += 0.5 * Math.exp(-i / 3500) * Math.sin(phase);
      }
    } else if (stroke === 'T' || (stroke === '.' && random.chance(0.2))) {
      const length = Math.min(out.length - at, Math.round(SAMPLE_RATE * 0.06));
      const gain = stroke === 'T' ? 0.25 : 0.1;
      let last = 0;
      for (let i = 0; i < length; i++) {
        const noise = random.next() * 2 - 1;
        const bright = noise - last; // a first difference: the click's high end
        last = noise;
        out[at + i]! += gain * Math.exp(-i / 400) * bright;
      }
    }
  }
}

/** Normalized to -1 dBFS and written as a 16-bit mono WAV. */
function wav(samples: Float32Array): Buffer {
  let peak = 0;
  for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
  const scale = peak > 0 ? (0.89 * 32767) / peak : 0;
  const body = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) body.writeInt16LE(Math.round(samples[i]! * scale), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + body.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(SAMPLE_RATE, 24);
  header.writeUInt32LE(SAMPLE_RATE * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(body.length, 40);
  return Buffer.concat([header, body]);
}
