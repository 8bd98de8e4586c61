import { spawn } from 'node:child_process';
import type { ClipLanguage, TimedLine } from './demo-video-script.ts';

/**
 * The demo clips' voices: Debian's espeak-ng, in Arabic (`-v ar`) and in
 * English, each line said on its own so its length, and so its subtitle's
 * timing, is known to the sample; then the lines laid on one track a
 * language, silence between them, as ffmpeg mixes it over the music.
 */

/** A mono 16-bit recording and its rate, as espeak-ng writes it (22,050 Hz). */
export interface Speech {
  readonly samples: Int16Array;
  readonly sampleRate: number;
}

export const speechMs = (speech: Speech) => (speech.samples.length * 1000) / speech.sampleRate;

/** espeak-ng's voices, a little slower than its default 175 words a minute: the lines are read with subtitles. */
const VOICES: Record<ClipLanguage, readonly string[]> = { ar: ['-v', 'ar', '-s', '150'], en: ['-v', 'en', '-s', '160'] };

/** The samples of a PCM WAV file (mono, 16-bit), read by its chunks: espeak-ng's header is not always 44 bytes. */
export function readWav(bytes: Buffer): Speech {
  if (bytes.toString('latin1', 0, 4) !== 'RIFF' || bytes.toString('latin1', 8, 12) !== 'WAVE') throw new Error('espeak-ng did not write a WAV file');
  let sampleRate = 0;
  for (let at = 12; at + 8 <= bytes.length;) {
    const id = bytes.toString('latin1', at, at + 4);
    const size = bytes.readUInt32LE(at + 4);
    if (id === 'fmt ') {
      if (bytes.readUInt16LE(at + 8) !== 1 || bytes.readUInt16LE(at + 10) !== 1 || bytes.readUInt16LE(at + 22) !== 16) throw new Error('espeak-ng wrote other than mono 16-bit PCM');
      sampleRate = bytes.readUInt32LE(at + 12);
    } else if (id === 'data') {
      // espeak-ng writing to a pipe leaves the size at its placeholder: the data runs to the end.
      const end = Math.min(bytes.length, at + 8 + size) & ~1;
      const data = Buffer.from(bytes.subarray(at + 8, end));
      return { samples: new Int16Array(data.buffer, data.byteOffset, data.length / 2), sampleRate };
    }
    at += 8 + size + (size & 1);
  }
  throw new Error('espeak-ng wrote a WAV file without samples');
}

/** `text` said by espeak-ng in `language`. */
export function speak(language: ClipLanguage, text: string, signal?: AbortSignal): Promise<Speech> {
  return new Promise((resolve, reject) => {
    // The text goes on standard input, so a line that starts with a dash is never read as an option.
    const child = spawn('espeak-ng', [...VOICES[language], '--stdin', '--stdout'], { stdio: ['pipe', 'pipe', 'pipe'], signal });
    const out: Buffer[] = [];
    let errors = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error('espeak-ng is not installed (Debian: apt-get install espeak-ng); the demo\'s video needs it for its voices') : error));
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`espeak-ng could not say "${text}": ${errors.trim() || `exit ${code}`}`));
      try {
        resolve(readWav(Buffer.concat(out)));
      } catch (error) {
        reject(error);
      }
    });
    child.stdin.end(`${text}\n`);
  });
}

/**
 * One language's voice track, `durationMs` long: each line's speech at its
 * start, silence elsewhere, as a WAV file's bytes at the speech's rate.
 */
export function voiceTrack(lines: readonly (TimedLine & { speech: Speech })[], durationMs: number, sampleRate: number): Buffer {
  const samples = new Int16Array(Math.ceil((durationMs / 1000) * sampleRate));
  for (const line of lines) {
    if (line.speech.sampleRate !== sampleRate) throw new Error(`espeak-ng spoke at ${line.speech.sampleRate} Hz, not ${sampleRate}`);
    const at = Math.round((line.startMs / 1000) * sampleRate);
    samples.set(line.speech.samples.subarray(0, Math.max(0, samples.length - at)), at);
  }
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples.byteLength, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples.byteLength, 40);
  return Buffer.concat([header, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength)]);
}
