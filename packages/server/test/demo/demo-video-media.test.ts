import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clipTitleOf, DEMO_FEATURED_MOVIES, DEMO_FEATURED_SHOWS, demoVideoTitles, generateDemoCatalog, openStorage, packageDemoTitle, packageDemoVideo, prepareDatabase,
  seedDemoCatalog, WINDOWS_1256_SUBTITLED, type PackagedDemoTitle, type Storage,
} from '@maqam/server';
import { encodeWindows1256, scheduleClip, spokenLines, subRip, type ClipParts } from '../../src/demo/demo-video-script.ts';
import { readWav, voiceTrack } from '../../src/demo/demo-video-speech.ts';
import { ffmpegAvailable } from '../system-tools.ts';

/**
 * The demo's video (issue 54, item 5): which titles get clips and in what
 * order, what a clip says when, and one title made and packaged for real
 * (ffmpeg and espeak-ng), short, as `maqam serve --demo` makes them all.
 */

const haveFfmpeg = ffmpegAvailable('the demo video packaging test');
const haveEspeak = haveFfmpeg && (() => {
  if (spawnSync('espeak-ng', ['--version']).status === 0) return true;
  if (process.env.MAQAM_REQUIRE_FFMPEG === '1') throw new Error('MAQAM_REQUIRE_FFMPEG=1 but espeak-ng is not installed (apt-get install espeak-ng)');
  process.stderr.write('\n*** espeak-ng is not installed (apt-get install espeak-ng): SKIPPING the demo video packaging test ***\n\n');
  return false;
})();

const TIMING = { introMs: 1000, lineGapMs: 500, partGapMs: 1000, outroMs: 2000, minMs: 30_000, maxMs: 60_000 };

describe('what a demo clip says', () => {
  const parts: ClipParts = [
    { ar: ['سطوح القاهرة.'], en: ['Cairo Rooftops.'] },
    { ar: ['جملة أولى،', 'جملة ثانية.'], en: ['A first line, and', 'a second.'] },
  ];
  // A second of speech for every ten characters: enough to tell the lines apart.
  const spoken = (_: string, text: string) => text.length * 100;

  it('starts each part at once in both languages, its lines one after the other, and lasts 30 s at least', () => {
    const script = scheduleClip(parts, spoken, TIMING);
    expect(script.lines.ar.map((line) => [line.startMs, line.endMs])).toEqual([[1000, 2300], [3500, 4500], [5000, 6100]]);
    // The description starts after the longer of the two titles (Arabic's 1.3 s against English's 1.5 s).
    expect(script.lines.en.map((line) => [line.startMs, line.endMs])).toEqual([[1000, 2500], [3500, 5200], [5700, 6600]]);
    expect(script.durationMs).toBe(30_000);
  });

  it('says in a short clip only what fits before its last seconds', () => {
    const script = scheduleClip(parts, spoken, { ...TIMING, minMs: 5000, maxMs: 5000 });
    expect(script.durationMs).toBe(5000);
    expect(script.lines.ar.map((line) => line.text)).toEqual(['سطوح القاهرة.']);
    expect(script.lines.en.map((line) => line.text)).toEqual(['Cairo Rooftops.']);
  });

  it('cuts a description into lines at sentences, then clauses, then near the middle', () => {
    expect(spokenLines('Short. Another one!')).toEqual(['Short.', 'Another one!']);
    const arabic = 'مصمّمة شابة تستأجر غرفة على سطح عمارة في وسط البلد، فتكتشف أن جارها على السطح المقابل هو منافسها في العمل.';
    expect(spokenLines(arabic)).toEqual(['مصمّمة شابة تستأجر غرفة على سطح عمارة في وسط البلد،', 'فتكتشف أن جارها على السطح المقابل هو منافسها في العمل.']);
    const long = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen';
    const halves = spokenLines(long);
    expect(halves.length).toBe(2);
    expect(halves.join(' ')).toBe(long);
  });

  it('writes SubRip with Windows line ends, a long cue on two lines', () => {
    const srt = subRip([{ text: 'سطوح القاهرة.', startMs: 1500, endMs: 3248 }, { text: 'A young designer rents a room on a rooftop in downtown Cairo', startMs: 61_000, endMs: 3_723_004 }]);
    expect(srt).toBe('1\r\n00:00:01,500 --> 00:00:03,248\r\nسطوح القاهرة.\r\n\r\n2\r\n00:01:01,000 --> 01:02:03,004\r\nA young designer rents a room\r\non a rooftop in downtown Cairo\r\n');
  });

  it('encodes Arabic in Windows-1256 as iconv does, and refuses what the code page lacks', () => {
    // "مرحبا بالعالم", the bytes of `iconv -t cp1256` (as the packaging test has them).
    expect([...encodeWindows1256('مرحبا بالعالم')]).toEqual([0xe3, 0xd1, 0xcd, 0xc8, 0xc7, 0x20, 0xc8, 0xc7, 0xe1, 0xda, 0xc7, 0xe1, 0xe3]);
    const text = 'مصمّمة شابة، «الأستاذ» 12\r\n';
    expect(new TextDecoder('windows-1256').decode(encodeWindows1256(text))).toBe(text);
    expect(() => encodeWindows1256('الحلقة ١')).toThrow(/U\+0661/);
  });

  it('lays each line\'s speech at its start on a silent track as long as the clip', () => {
    const speech = { samples: Int16Array.from([1000, -1000, 500]), sampleRate: 10 };
    const track = readWav(voiceTrack([{ text: 'x', startMs: 200, endMs: 500, speech }], 1000, 10));
    expect(track.sampleRate).toBe(10);
    expect([...track.samples]).toEqual([0, 0, 1000, -1000, 500, 0, 0, 0, 0, 0]);
  });
});

describe('the demo titles given video', () => {
  it('are the showcase of the demo catalog: every featured show and film is in it', () => {
    const ids = new Set([...generateDemoCatalog({ songs: 100, knownArtists: true })].flatMap((record) => ('id' in record ? [record.id] : [])));
    for (const id of [...DEMO_FEATURED_SHOWS, ...DEMO_FEATURED_MOVIES]) expect(ids.has(id), id).toBe(true);
  });
});

describe.skipIf(!haveEspeak)('a demo title made and packaged (ffmpeg, espeak-ng)', () => {
  let dir: string;
  let storage: Storage;
  let made: PackagedDemoTitle;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-demo-video-test-'));
    storage = openStorage(`sqlite:${join(dir, 'maqam.db')}`);
    await prepareDatabase(storage);
    await seedDemoCatalog(storage, { songs: 100, knownArtists: true });
    // Eight seconds: the title fits, the description's first line (five seconds in Arabic) does not.
    made = await packageDemoTitle(storage, join(dir, 'media'), { kind: 'movie', id: WINDOWS_1256_SUBTITLED }, dir, { seconds: 8 });
  }, 120_000);

  afterAll(async () => {
    await storage?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('comes first for the Watch home\'s spotlight, then the shows\' first episodes, then the films, as the home shows them', async () => {
    const titles = await demoVideoTitles(storage);
    expect(titles).toEqual([
      ...DEMO_FEATURED_SHOWS.map((id) => ({ kind: 'episode', id: `episode-${id.slice('show-'.length)}-1-1` })),
      ...DEMO_FEATURED_MOVIES.map((id) => ({ kind: 'movie', id })),
    ]);
    expect(titles[0]).toEqual({ kind: 'episode', id: 'episode-beit-al-karma-1-1' });
  });

  it('says the title in Arabic and in English, and of its description what fits', () => {
    expect(made.script.durationMs).toBe(8000);
    expect(made.script.lines.ar[0]).toMatchObject({ text: 'سطوح القاهرة.', startMs: 1500 });
    expect(made.script.lines.en[0]).toMatchObject({ text: 'Cairo Rooftops.', startMs: 1500 });
    for (const line of [...made.script.lines.ar, ...made.script.lines.en]) {
      // Said in a second or more, and over before the music's last seconds.
      expect(line.endMs - line.startMs).toBeGreaterThan(1000);
      expect(line.endMs).toBeLessThanOrEqual(5500);
    }
  });

  it('is packaged in SD and HD with both voices, Arabic (the film\'s language) the default, and both subtitles', () => {
    const { packaged } = made;
    expect(packaged.renditions.map((rendition) => [rendition.quality, rendition.width, rendition.height])).toEqual([['VIDEO_QUALITY_SD', 854, 480], ['VIDEO_QUALITY_HD', 1280, 720]]);
    expect(packaged.audio.map((track) => [track.language, track.name, track.isDefault])).toEqual([['ar', 'العربية', true], ['en', 'English', false]]);
    expect(packaged.subtitles.map((track) => [track.language, track.forced])).toEqual([['ar', false], ['en', false]]);
    expect(packaged.durationMs).toBeGreaterThanOrEqual(7900);
    expect(packaged.durationMs).toBeLessThanOrEqual(8100);
  });

  it("gives the title its clip's length in the catalog, so continue watching can start and finish it", async () => {
    const movie = await storage.db.selectFrom('movies').select(['duration_ms', 'credits_start_ms']).where('id', '=', WINDOWS_1256_SUBTITLED).executeTakeFirstOrThrow();
    expect(movie).toEqual({ duration_ms: made.packaged.durationMs, credits_start_ms: null });
  });

  it('subtitles each line when it is spoken, the Arabic given in Windows-1256 read back as Arabic', async () => {
    expect((await clipTitleOf(storage, { kind: 'movie', id: WINDOWS_1256_SUBTITLED }))?.arabicSubtitles).toBe('windows-1256');
    for (const language of ['ar', 'en'] as const) {
      const folder = join(dir, 'media', made.packaged.directory, made.packaged.subtitles.find((track) => track.language === language)!.playlist, '..');
      const vtt = ['seg00000.vtt', 'seg00001.vtt'].map((file) => `${readFileSync(join(folder, file), 'utf8')}\n\n`).join('');
      const cues = [...vtt.matchAll(/(\d\d:\d\d:\d\d\.\d{3}) --> (\d\d:\d\d:\d\d\.\d{3})\n((?:.+\n?)+)/g)].map((match) => ({ from: match[1], to: match[2], text: match[3]!.trim().replace(/\n/g, ' ') }));
      const at = (ms: number) => `00:00:${String(Math.floor(ms / 1000)).padStart(2, '0')}.${String(ms % 1000).padStart(3, '0')}`;
      for (const line of made.script.lines[language]) expect(cues, line.text).toContainEqual({ from: at(line.startMs), to: at(line.endMs), text: line.text });
    }
  });

  it('packages nothing when its limit is 0, as `serve --demo` with MAQAM_DEMO_MUSIC=0', async () => {
    const ready: string[] = [];
    await packageDemoVideo(storage, join(dir, 'media'), (title) => ready.push(title.id), { limit: 0 });
    expect(ready).toEqual([]);
    expect(await storage.db.selectFrom('video_packages').select('title_id').execute()).toEqual([{ title_id: WINDOWS_1256_SUBTITLED }]);
  });
});
