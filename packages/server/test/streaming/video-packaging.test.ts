import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportRecord } from '@maqam/contract';
import { addVideo, decodeSubtitleBytes, masterPlaylist, MediaError, openStorage, parseSubtitles, VIDEO_PACKAGE_FILE, videoDirectoryOf, type Storage, type VideoPackage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { ffmpegAvailable } from '../system-tools.ts';
import { importRecords } from '../video/video-fixtures.ts';

const haveFfmpeg = ffmpegAvailable('the video packaging tests');

function ffmpeg(...args: string[]): void {
  const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-nostdin', '-y', ...args]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
}

function ffprobeJson(file: string, ...args: string[]) {
  const probed = spawnSync('ffprobe', ['-v', 'error', '-of', 'json', ...args, file], { encoding: 'utf8' });
  if (probed.status !== 0) throw new Error(probed.stderr);
  return JSON.parse(probed.stdout) as { packets?: { pts: number; flags: string; codec_type: string }[]; streams?: { codec_type: string; nb_read_packets?: string; codec_name?: string; channels?: number; profile?: string; level?: number; width?: number; height?: number }[] };
}

/** A picture of ffmpeg's test pattern with a tone: what a camera or an editor would hand over, in a few seconds of encoding. */
function source(file: string, size: string, rate: string, seconds: number, frequency: number): string {
  ffmpeg(
    '-f', 'lavfi', '-i', `testsrc2=size=${size}:rate=${rate}:duration=${seconds}`, '-f', 'lavfi', '-i', `sine=frequency=${frequency}:duration=${seconds}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-crf', '30', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', file,
  );
  return file;
}

// "مرحبا بالعالم" in Windows-1256, the code page Arabic SRT files from Windows tools are written in (bytes as iconv -t cp1256 writes them).
const HELLO_WORLD_CP1256 = [0xe3, 0xd1, 0xcd, 0xc8, 0xc7, 0x20, 0xc8, 0xc7, 0xe1, 0xda, 0xc7, 0xe1, 0xe3];

const ARABIC_SRT = [
  '1', '00:00:01,000 --> 00:00:03,000', 'أهلاً وسهلاً', '',
  // Over the first segment boundary (6 s): it must be in the first two segments.
  '2', '00:00:05,000 --> 00:00:07,500', '<i>عبر الحدود</i> & بعدها', '',
  '3', '00:00:12,200 --> 00:00:12,800', 'في الجزء الأخير', '',
].join('\r\n');

const records: ImportRecord[] = [
  { kind: 'movie', id: 'movie-packaged', title: { ar: 'فيلم مغلف', en: 'Packaged Film' }, originalLanguage: 'ar', releaseDate: '2024-01-01', durationMs: 13_000, ageRating: 'AGE_RATING_ALL' },
  { kind: 'show', id: 'show-packaged', title: { ar: 'مسلسل مغلف', en: 'Packaged Show' }, originalLanguage: 'ar', releaseYear: 2024, ageRating: 'AGE_RATING_ALL' },
  { kind: 'season', id: 'season-packaged', showId: 'show-packaged', seasonNumber: 1, title: { ar: 'الموسم الأول', en: 'Season 1' }, originalLanguage: 'ar' },
  { kind: 'episode', id: 'ep-packaged', seasonId: 'season-packaged', episodeNumber: 1, title: { ar: 'الحلقة 1', en: 'Episode 1' }, originalLanguage: 'en', durationMs: 7_000 },
];

/** The row of a title's package, as a reader of video_packages sees it. */
async function packageRow(storage: Storage, kind: 'movie' | 'episode', id: string): Promise<VideoPackage | undefined> {
  const row = await storage.db.selectFrom('video_packages').selectAll().where('title_kind', '=', kind).where('title_id', '=', id).executeTakeFirst();
  return row && {
    directory: row.directory, renditions: JSON.parse(row.renditions), audio: JSON.parse(row.audio), subtitles: JSON.parse(row.subtitles),
    keyHex: row.key_hex, ivHex: row.iv_hex, durationMs: Number(row.duration_ms),
  };
}

interface PlaylistEntry {
  readonly file: string;
  readonly duration: number;
  readonly byteRange?: { length: number; offset: number };
}

/** A media playlist's tags and segments; it must be complete. */
function mediaPlaylist(path: string) {
  const text = readFileSync(path, 'utf8');
  const lines = text.trim().split('\n');
  expect(lines[0]).toBe('#EXTM3U');
  expect(lines.at(-1)).toBe('#EXT-X-ENDLIST');
  const entries: PlaylistEntry[] = [];
  let duration = 0;
  let byteRange: PlaylistEntry['byteRange'];
  for (const line of lines) {
    if (line.startsWith('#EXTINF:')) duration = Number.parseFloat(line.slice(8));
    else if (line.startsWith('#EXT-X-BYTERANGE:')) {
      const [length, offset] = line.slice(17).split('@').map(Number);
      byteRange = { length: length!, offset: offset! };
    } else if (!line.startsWith('#')) {
      entries.push({ file: line, duration, ...(byteRange && { byteRange }) });
      byteRange = undefined;
    }
  }
  return { text, entries, targetDuration: Number(/#EXT-X-TARGETDURATION:(\d+)/.exec(text)?.[1]) };
}

function decrypt(bytes: Buffer, pkg: VideoPackage, padded = true): Buffer {
  const decipher = createDecipheriv('aes-128-cbc', Buffer.from(pkg.keyHex, 'hex'), Buffer.from(pkg.ivHex, 'hex'));
  decipher.setAutoPadding(padded);
  return Buffer.concat([decipher.update(bytes), decipher.final()]);
}

/** NAL unit types of the first video packet of a TS file, as ffmpeg's trace_headers reads them (its SPS and PPS first). */
function firstPacketNalTypes(file: string): number[] {
  const traced = spawnSync('ffmpeg', ['-hide_banner', '-v', 'info', '-i', file, '-map', '0:v:0', '-frames:v', '1', '-c', 'copy', '-bsf:v', 'trace_headers', '-f', 'null', '-'], { encoding: 'utf8' });
  return [...traced.stderr.matchAll(/nal_unit_type\s+[01]+ = (\d+)/g)].map((match) => Number(match[1]));
}

/** Every file a package's playlists name, relative to the package: each must be there and not empty. */
function checkPlaylistsComplete(root: string, pkg: VideoPackage): void {
  const playlists = [...pkg.renditions.flatMap((r) => [r.playlist, r.iframePlaylist]), ...pkg.audio.map((a) => a.playlist), ...pkg.subtitles.map((s) => s.playlist)];
  for (const playlist of playlists) {
    expect(playlist).toMatch(VIDEO_PACKAGE_FILE);
    const folder = playlist.split('/')[0]!;
    const { entries } = mediaPlaylist(join(root, pkg.directory, playlist));
    expect(entries.length).toBeGreaterThan(0);
    for (const entry of entries) {
      expect(`${folder}/${entry.file}`).toMatch(VIDEO_PACKAGE_FILE);
      expect(statSync(join(root, pkg.directory, folder, entry.file)).size).toBeGreaterThan(0);
    }
  }
}

describe('subtitle files as operators have them', () => {
  it('reads UTF-8 (with or without a BOM), UTF-16 with its BOM, and Windows-1256 when the bytes are not UTF-8', () => {
    const arabic = 'مرحبا بالعالم';
    expect(decodeSubtitleBytes(Buffer.from(`\uFEFF${arabic}`))).toEqual({ text: arabic, encoding: 'utf-8' });
    expect(decodeSubtitleBytes(Buffer.from(arabic))).toEqual({ text: arabic, encoding: 'utf-8' });
    expect(decodeSubtitleBytes(Buffer.from(HELLO_WORLD_CP1256))).toEqual({ text: arabic, encoding: 'windows-1256' });
    expect(decodeSubtitleBytes(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(arabic, 'utf16le')]))).toEqual({ text: arabic, encoding: 'utf-16le' });
  });

  it('parses SRT as the wild writes it: no blank line between cues, no hours, <font> and {\\an8} tags, & as text', () => {
    const srt = '1\n00:01,000 --> 00:02,500\n{\\an8}<font color="#ffff00">Tom & Jerry</font>\n2\n00:00:03,000 --> 00:00:04,000\n<b>bold</b> --> on\n\n3\n00:00:09,000 --> 00:00:08,000\nbackwards\n';
    expect(parseSubtitles(srt)).toEqual([
      { startMs: 1000, endMs: 2500, settings: '', text: 'Tom &amp; Jerry' },
      { startMs: 3000, endMs: 4000, settings: '', text: '<b>bold</b> --&gt; on' },
    ]);
    expect(() => parseSubtitles('just some text\n')).toThrow('no cues found');
  });
});

describe.skipIf(!haveFfmpeg)('maqam media add-video: the package players need', () => {
  let server: TestServer;
  let dir: string;
  let media: string;
  let film: VideoPackage;
  let episode: VideoPackage;
  /** 90 kHz PTS of the first frame of each segment, by package and rendition folder (ffprobe on the decrypted segments). */
  const segmentStarts = new Map<string, number[]>();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-video-packaging-'));
    media = join(dir, 'media');
    server = await startTestServer(dialects[0]!, { MAQAM_MEDIA_DIR: media });
    expect((await importRecords(server.storage, records)).errors).toEqual([]);
    // A film at 23.976 frames a second (keyframes every 6 s fall between frames) and an episode in 1080p, of two segments
    // (7 s: a second segment is all its checks need, and each of its seconds is three encodes, 1080p among them).
    const filmSource = source(join(dir, 'film.mp4'), '1280x720', '24000/1001', 13, 440);
    const episodeSource = source(join(dir, 'episode.mkv'), '1920x1080', '15', 7, 660);
    // The English dub is shorter than the picture: it is padded to the picture's length.
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=880:duration=9', join(dir, 'english.wav'));
    writeFileSync(join(dir, 'arabic.srt'), `\uFEFF${ARABIC_SRT}`);
    writeFileSync(join(dir, 'signs-1256.srt'), Buffer.concat([Buffer.from('1\r\n00:00:02,000 --> 00:00:08,000\r\n'), Buffer.from(HELLO_WORLD_CP1256), Buffer.from('\r\n')]));
    writeFileSync(join(dir, 'english.vtt'), 'WEBVTT\n\nNOTE a comment\n\nintro\n00:01.000 --> 00:04.000 align:start line:10%\nHello & welcome\n\n00:11.000 --> 00:12.000\nThe end\n');
    const progress: number[] = [];
    const packaged = await addVideo(server.storage.db, media, { kind: 'movie', id: 'movie-packaged' }, filmSource, {
      audio: [{ language: 'en', file: join(dir, 'english.wav') }],
      subtitles: [
        { language: 'ar', file: join(dir, 'arabic.srt') },
        { language: 'ar', file: join(dir, 'signs-1256.srt'), forced: true },
        { language: 'en', file: join(dir, 'english.vtt') },
      ],
      onProgress: (p) => progress.push(p.encodedMs / p.durationMs),
    });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(1);
    await addVideo(server.storage.db, media, { kind: 'episode', id: 'ep-packaged' }, episodeSource);
    film = (await packageRow(server.storage, 'movie', 'movie-packaged'))!;
    episode = (await packageRow(server.storage, 'episode', 'ep-packaged'))!;
    const { title: _title, ...recorded } = packaged;
    expect(film).toEqual(recorded);
    for (const [name, pkg] of [['film', film], ['episode', episode]] as const) {
      for (const rendition of pkg.renditions) {
        const folder = rendition.playlist.split('/')[0]!;
        const starts: number[] = [];
        for (const entry of mediaPlaylist(join(media, pkg.directory, rendition.playlist)).entries) {
          const clear = join(dir, `${name}-${folder}-${entry.file}`);
          writeFileSync(clear, decrypt(readFileSync(join(media, pkg.directory, folder, entry.file)), pkg));
          const first = ffprobeJson(clear, '-select_streams', 'v:0', '-show_entries', 'packet=pts,flags,codec_type', '-read_intervals', '%+#1').packets![0]!;
          expect(first.flags.startsWith('K'), `${name} ${folder}/${entry.file} starts with a keyframe`).toBe(true);
          starts.push(first.pts);
        }
        segmentStarts.set(`${name} ${folder}`, starts);
      }
    }
  }, 180_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('encodes the ladder up to the source\'s height and skips the steps above it', () => {
    expect(film.renditions.map((r) => [r.quality, r.width, r.height])).toEqual([['VIDEO_QUALITY_SD', 854, 480], ['VIDEO_QUALITY_HD', 1280, 720]]);
    expect(episode.renditions.map((r) => [r.quality, r.width, r.height])).toEqual([['VIDEO_QUALITY_SD', 854, 480], ['VIDEO_QUALITY_HD', 1280, 720], ['VIDEO_QUALITY_FULL_HD', 1920, 1080]]);
    expect(film.durationMs).toBeGreaterThan(12_900);
    expect(film.durationMs).toBeLessThan(13_100);
    expect(episode.durationMs).toBe(7_000);
  });

  it('writes every playlist complete, every file it names present and not empty, and the key nowhere in the media folder', () => {
    for (const pkg of [film, episode]) {
      checkPlaylistsComplete(media, pkg);
      expect(pkg.directory.startsWith(`${videoDirectoryOf({ kind: pkg === film ? 'movie' : 'episode', id: pkg === film ? 'movie-packaged' : 'ep-packaged' })}/`)).toBe(true);
      const files = readdirSync(join(media, pkg.directory), { recursive: true }) as string[];
      expect(files.filter((file) => !/^[^/]+$/.test(file)).every((file) => VIDEO_PACKAGE_FILE.test(file)), files.join(' ')).toBe(true);
      for (const file of files) if (file.endsWith('.ts')) expect(readFileSync(join(media, pkg.directory, file)).includes(Buffer.from(pkg.keyHex, 'hex'))).toBe(false);
      // One package a title, and nothing written aside left behind.
      expect(readdirSync(join(media, pkg.directory, '..'))).toEqual([pkg.directory.split('/').pop()]);
    }
  });

  it('starts every segment of every rendition with an IDR frame, at the same instants in every rendition', () => {
    for (const [name, pkg] of [['film', film], ['episode', episode]] as const) {
      const grids = pkg.renditions.map((r) => segmentStarts.get(`${name} ${r.playlist.split('/')[0]}`)!);
      expect(grids[0]!.length).toBe(name === 'film' ? 3 : 2);
      for (const grid of grids) expect(grid).toEqual(grids[0]);
      // 6 s apart, in 90 kHz units, to the frame.
      expect(grids[0]![1]! - grids[0]![0]!).toBeGreaterThanOrEqual(6 * 90_000);
      expect(grids[0]![1]! - grids[0]![0]!).toBeLessThan(6 * 90_000 + 90_000 / 14);
      const durations = pkg.renditions.map((r) => mediaPlaylist(join(media, pkg.directory, r.playlist)).entries.map((e) => e.duration));
      for (const list of durations) expect(list).toEqual(durations[0]);
      for (const rendition of pkg.renditions) {
        const folder = rendition.playlist.split('/')[0]!;
        for (const entry of mediaPlaylist(join(media, pkg.directory, rendition.playlist)).entries) {
          expect(firstPacketNalTypes(join(dir, `${name}-${folder}-${entry.file}`)), `${name} ${folder}/${entry.file}`).toContain(5);
        }
      }
    }
  });

  it('encrypts every segment with the title\'s one key and explicit IV, and the decrypted segments decode', () => {
    for (const [name, pkg] of [['film', film], ['episode', episode]] as const) {
      expect(pkg.keyHex).toMatch(/^[0-9a-f]{32}$/);
      expect(pkg.ivHex).toMatch(/^[0-9a-f]{32}$/);
      for (const playlist of [...pkg.renditions.flatMap((r) => [r.playlist, r.iframePlaylist]), ...pkg.audio.map((a) => a.playlist)]) {
        const keys = mediaPlaylist(join(media, pkg.directory, playlist)).text.match(/^#EXT-X-KEY:.*$/gm);
        expect(keys).toEqual([`#EXT-X-KEY:METHOD=AES-128,URI="key",IV=0x${pkg.ivHex}`]);
      }
      for (const rendition of pkg.renditions) {
        // Decrypted (in beforeAll) and read one after the other, as a player reads them: every frame decodes.
        const folder = rendition.playlist.split('/')[0]!;
        const clear = join(dir, `${name}-${folder}.ts`);
        writeFileSync(clear, Buffer.concat(mediaPlaylist(join(media, pkg.directory, rendition.playlist)).entries.map((entry) => readFileSync(join(dir, `${name}-${folder}-${entry.file}`)))));
        const decoded = spawnSync('ffmpeg', ['-v', 'error', '-i', clear, '-f', 'null', '-'], { encoding: 'utf8' });
        expect(decoded.status).toBe(0);
        expect(decoded.stderr).toBe('');
        // Every frame of the source, in every rendition: 13 s at 24000/1001 and 7 s at 15 a second.
        const counted = ffprobeJson(clear, '-count_packets', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_packets').streams![0]!;
        expect(Number(counted.nb_read_packets)).toBe(name === 'film' ? 312 : 105);
      }
      for (const track of pkg.audio) {
        const folder = track.playlist.split('/')[0]!;
        const entries = mediaPlaylist(join(media, pkg.directory, track.playlist)).entries;
        // On the video's grid: as many segments, each ending within two AAC frames of the video's.
        const video = mediaPlaylist(join(media, pkg.directory, pkg.renditions[0]!.playlist)).entries;
        const ends = (list: PlaylistEntry[]) => list.map((_, i) => list.slice(0, i + 1).reduce((sum, e) => sum + e.duration, 0));
        expect(entries).toHaveLength(video.length);
        ends(entries).forEach((end, i) => expect(Math.abs(end - ends(video)[i]!)).toBeLessThan(0.045));
        // As a player reads them, one after the other (ffprobe would guess the codec of a lone second of padded silence wrong).
        const clear = join(dir, `${name}-${folder}.ts`);
        writeFileSync(clear, Buffer.concat(entries.map((entry) => decrypt(readFileSync(join(media, pkg.directory, folder, entry.file)), pkg))));
        const streams = ffprobeJson(clear, '-show_entries', 'stream=codec_type,codec_name,profile,channels').streams!;
        expect(streams.map((s) => [s.codec_type, s.codec_name, s.profile, s.channels])).toEqual([['audio', 'aac', 'LC', 2]]);
        const decoded = spawnSync('ffmpeg', ['-v', 'error', '-i', clear, '-f', 'null', '-'], { encoding: 'utf8' });
        expect(decoded.status).toBe(0);
        expect(decoded.stderr).toBe('');
        // In sync with the picture, though muxed apart: the first sound after the AAC encoder's priming (1,024 samples at
        // 48 kHz) has the PTS of the first picture (the peers' renditions drift by the B-frame delay).
        const firstAudio = ffprobeJson(clear, '-show_entries', 'packet=pts', '-read_intervals', '%+#1').packets![0]!.pts;
        expect(firstAudio + (1024 * 90_000) / 48_000).toBe(segmentStarts.get(`${name} ${pkg.renditions[0]!.playlist.split('/')[0]}`)![0]);
      }
    }
  });

  it('writes an I-frame playlist whose byte ranges hold each segment\'s IDR frame', () => {
    for (const [name, pkg] of [['film', film], ['episode', episode]] as const) {
      for (const rendition of pkg.renditions) {
        const folder = rendition.playlist.split('/')[0]!;
        const iframes = mediaPlaylist(join(media, pkg.directory, rendition.iframePlaylist));
        expect(iframes.text).toContain('#EXT-X-I-FRAMES-ONLY');
        const segments = mediaPlaylist(join(media, pkg.directory, rendition.playlist)).entries;
        expect(iframes.entries.map((e) => [e.file, e.duration])).toEqual(segments.map((e) => [e.file, e.duration]));
        let peak = 0;
        for (const [i, entry] of iframes.entries.entries()) {
          const { length, offset } = entry.byteRange!;
          expect(offset).toBe(0);
          expect(length % 188).toBe(0);
          // As a player does (rfc8216bis §6.3.6): the range widened to whole AES blocks, decrypted from the playlist's IV, cut back.
          const encrypted = readFileSync(join(media, pkg.directory, folder, entry.file));
          const clear = decrypt(encrypted.subarray(0, Math.ceil(length / 16) * 16), pkg, false).subarray(0, length);
          const file = join(dir, `${name}-${folder}-iframe-${i}.ts`);
          writeFileSync(file, clear);
          const packets = ffprobeJson(file, '-show_entries', 'packet=pts,flags,codec_type').packets!;
          expect(packets.map((p) => [p.codec_type, p.flags.startsWith('K')])).toEqual([['video', true]]);
          expect(packets[0]!.pts).toBe(segmentStarts.get(`${name} ${folder}`)![i]);
          expect(firstPacketNalTypes(file)).toContain(5);
          // The range ends where the next frame begins: the byte after it starts a TS packet of a new PES (payload_unit_start_indicator).
          if (length < encrypted.length) {
            const whole = decrypt(encrypted, pkg);
            expect(whole[length]).toBe(0x47);
            expect(whole[length + 1]! & 0x40).toBe(0x40);
          }
          peak = Math.max(peak, (length * 8) / entry.duration);
        }
        expect(rendition.iframeBandwidth).toBe(Math.ceil(peak));
      }
    }
  });

  it('writes WebVTT segments on the video\'s grid, each with the timestamp map of the video\'s first frame, repeating cues that cross a boundary', () => {
    const firstPts = segmentStarts.get(`film ${film.renditions[0]!.playlist.split('/')[0]}`)![0]!;
    const video = mediaPlaylist(join(media, film.directory, film.renditions[0]!.playlist));
    const tracks = Object.fromEntries(film.subtitles.map((s) => [`${s.language}${s.forced ? ' forced' : ''}`, s]));
    expect(Object.keys(tracks).sort()).toEqual(['ar', 'ar forced', 'en']);
    const segmentsOf = (playlist: string) => {
      const parsed = mediaPlaylist(join(media, film.directory, playlist));
      expect(parsed.entries.map((e) => e.duration)).toEqual(video.entries.map((e) => e.duration));
      expect(parsed.targetDuration).toBe(video.targetDuration);
      return parsed.entries.map((e) => readFileSync(join(media, film.directory, playlist.split('/')[0]!, e.file), 'utf8'));
    };
    for (const track of film.subtitles) {
      for (const vtt of segmentsOf(track.playlist)) {
        expect(vtt.split('\n').slice(0, 2)).toEqual(['WEBVTT', `X-TIMESTAMP-MAP=MPEGTS:${firstPts},LOCAL:00:00:00.000`]);
      }
    }
    const arabic = segmentsOf(tracks.ar!.playlist);
    const crossing = '00:00:05.000 --> 00:00:07.500\n<i>عبر الحدود</i> &amp; بعدها';
    expect(arabic.map((vtt) => vtt.includes(crossing))).toEqual([true, true, false]);
    expect(arabic.map((vtt) => vtt.includes('أهلاً وسهلاً'))).toEqual([true, false, false]);
    expect(arabic.map((vtt) => vtt.includes('00:00:12.200 --> 00:00:12.800\nفي الجزء الأخير'))).toEqual([false, false, true]);
    // Windows-1256 bytes read as the Arabic they are; the cue spans the first boundary.
    const signs = segmentsOf(tracks['ar forced']!.playlist);
    expect(signs.map((vtt) => vtt.includes('00:00:02.000 --> 00:00:08.000\nمرحبا بالعالم'))).toEqual([true, true, false]);
    // WebVTT in: settings kept, identifiers and notes dropped, & escaped.
    const english = segmentsOf(tracks.en!.playlist);
    expect(english[0]).toContain('00:00:01.000 --> 00:00:04.000 align:start line:10%\nHello &amp; welcome\n');
    expect(english.join('')).not.toMatch(/NOTE|intro/);
    expect(english.map((vtt) => vtt.includes('The end'))).toEqual([false, true, false]);
  });

  it('has the master playlist of section 15: measured variants, one audio group with one DEFAULT, names in their own languages, FORCED where asked', () => {
    const master = masterPlaylist(film, 'VIDEO_QUALITY_UHD', (path) => path);
    const tags = master.split('\n').filter((line) => line.startsWith('#EXT-X-'));
    const attributes = (line: string) => Object.fromEntries([...line.matchAll(/([A-Z-]+)=("[^"]*"|[^,]*)/g)].map((m) => [m[1], m[2]!.replace(/^"|"$/g, '')]));
    const audio = tags.filter((t) => t.startsWith('#EXT-X-MEDIA:TYPE=AUDIO')).map(attributes);
    expect(audio.map((a) => [a['GROUP-ID'], a.LANGUAGE, a.NAME, a.DEFAULT])).toEqual([['audio', 'ar', 'العربية', 'YES'], ['audio', 'en', 'English', 'NO']]);
    const subtitles = tags.filter((t) => t.startsWith('#EXT-X-MEDIA:TYPE=SUBTITLES')).map(attributes);
    expect(subtitles.map((s) => [s.LANGUAGE, s.NAME, s.FORCED])).toEqual([['ar', 'العربية', 'NO'], ['ar', 'العربية (إجبارية)', 'YES'], ['en', 'English', 'NO']]);
    const variants = tags.filter((t) => t.startsWith('#EXT-X-STREAM-INF:')).map(attributes);
    expect(variants).toHaveLength(2);
    const audioPeak = Math.max(...film.audio.map((track) => {
      const entries = mediaPlaylist(join(media, film.directory, track.playlist)).entries;
      return Math.max(...entries.map((e) => (statSync(join(media, film.directory, track.playlist.split('/')[0]!, e.file)).size * 8) / e.duration));
    }));
    for (const [i, variant] of variants.entries()) {
      const rendition = film.renditions[i]!;
      const folder = rendition.playlist.split('/')[0]!;
      expect(variant.AUDIO).toBe('audio');
      expect(variant.SUBTITLES).toBe('subs');
      expect(variant['CLOSED-CAPTIONS']).toBe('NONE');
      expect(variant.RESOLUTION).toBe(`${rendition.width}x${rendition.height}`);
      expect(variant['FRAME-RATE']).toBe('23.976');
      // CODECS as ffprobe reads the segments: High profile, the level it reports.
      const probed = ffprobeJson(join(dir, `film-${folder}-seg00000.ts`), '-show_entries', 'stream=profile,level').streams![0]!;
      expect(probed.profile).toBe('High');
      expect(variant.CODECS).toBe(`avc1.6400${probed.level!.toString(16)},mp4a.40.2`);
      // BANDWIDTH: the peak segment's bits a second, with the largest audio's.
      const entries = mediaPlaylist(join(media, film.directory, rendition.playlist)).entries;
      const videoPeak = Math.max(...entries.map((e) => (statSync(join(media, film.directory, folder, e.file)).size * 8) / e.duration));
      expect(Number(variant.BANDWIDTH)).toBe(Math.ceil(videoPeak + audioPeak));
      expect(Number(variant['AVERAGE-BANDWIDTH'])).toBeLessThanOrEqual(Number(variant.BANDWIDTH));
      expect(Number(variant['AVERAGE-BANDWIDTH'])).toBeGreaterThan(rendition.averageBandwidth * 0.99);
    }
    expect(tags.filter((t) => t.startsWith('#EXT-X-I-FRAME-STREAM-INF:')).map(attributes).map((a) => a.URI)).toEqual(film.renditions.map((r) => r.iframePlaylist));
    // The episode is in English: its source's audio is English, and the one DEFAULT.
    expect(episode.audio.map((a) => [a.language, a.name, a.isDefault, a.codecs, a.channels])).toEqual([['en', 'English', true, 'mp4a.40.2', 2]]);
    expect(episode.subtitles).toEqual([]);
  });

  it('refuses an unknown title, a file without video and a language that is not one, leaving no package and nothing written aside', async () => {
    const db = server.storage.db;
    const film = join(dir, 'film.mp4');
    await expect(addVideo(db, media, { kind: 'movie', id: 'ep-packaged' }, film)).rejects.toThrow('no movie with id "ep-packaged"');
    await expect(addVideo(db, media, { kind: 'episode', id: 'ep-packaged' }, join(dir, 'english.wav'))).rejects.toThrow(MediaError);
    await expect(addVideo(db, media, { kind: 'episode', id: 'ep-packaged' }, film, { audio: [{ language: 'not a language', file: join(dir, 'english.wav') }] })).rejects.toThrow('is not a language tag');
    await expect(addVideo(db, media, { kind: 'episode', id: 'ep-packaged' }, film, { subtitles: [{ language: 'ar', file: join(dir, 'english.wav') }] })).rejects.toThrow('no cues found');
    expect(await packageRow(server.storage, 'episode', 'ep-packaged')).toEqual(episode);
    expect(readdirSync(join(media, episode.directory, '..'))).toEqual([episode.directory.split('/').pop()]);
  });
});

/**
 * Issue 54, item 6: media on many nodes. Two nodes (each its own storage) on
 * one PostgreSQL database and one media folder: what one packages, the
 * other reads whole through the record; while a new package of the title
 * is written, the other still reads the old one whole, never the new one
 * half-written; once recorded, the new one, and the old one is gone.
 */
describe.skipIf(!haveFfmpeg || !dialects.some((d) => d.name === 'postgres'))('a package on two nodes sharing PostgreSQL and a media folder', () => {
  let server: TestServer;
  let other: Storage;
  let dir: string;
  let media: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-video-nodes-'));
    media = join(dir, 'shared-media');
    server = await startTestServer(dialects.find((d) => d.name === 'postgres')!, { MAQAM_MEDIA_DIR: media });
    other = openStorage(server.databaseUrl);
    expect((await importRecords(server.storage, records)).errors).toEqual([]);
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What the other node reads of the title: the recorded package, every file of it there, every segment decrypting with the recorded key. */
  async function readOnOtherNode(): Promise<VideoPackage | undefined> {
    const pkg = await packageRow(other, 'movie', 'movie-packaged');
    if (pkg === undefined) return undefined;
    checkPlaylistsComplete(media, pkg);
    for (const playlist of [...pkg.renditions.map((r) => r.playlist), ...pkg.audio.map((a) => a.playlist)]) {
      for (const entry of mediaPlaylist(join(media, pkg.directory, playlist)).entries) {
        expect(decrypt(readFileSync(join(media, pkg.directory, playlist.split('/')[0]!, entry.file)), pkg)[0]).toBe(0x47);
      }
    }
    return pkg;
  }

  it('serves from any node what one node packaged, whole or not at all', async () => {
    const first = source(join(dir, 'first.mp4'), '640x360', '25', 7, 440);
    const second = source(join(dir, 'second.mp4'), '480x270', '25', 8, 550);
    expect(await readOnOtherNode()).toBeUndefined();
    const packaged = await addVideo(server.storage.db, media, { kind: 'movie', id: 'movie-packaged' }, first);
    const seen = (await readOnOtherNode())!;
    expect(seen.directory).toBe(packaged.directory);
    expect(seen.renditions.map((r) => [r.quality, r.width, r.height])).toEqual([['VIDEO_QUALITY_SD', 640, 360]]);

    // Packaging again: while ffmpeg writes the new package aside, the other node reads the old one, whole.
    const during: Promise<VideoPackage | undefined>[] = [];
    const aside: string[][] = [];
    const replaced = await addVideo(server.storage.db, media, { kind: 'movie', id: 'movie-packaged' }, second, {
      onProgress: () => {
        aside.push(readdirSync(join(media, packaged.directory, '..')).filter((name) => name.endsWith('.partial')));
        during.push(readOnOtherNode());
      },
    });
    expect(during.length).toBeGreaterThan(0);
    // The new package was being written beside the old one, under a name no row gives.
    expect(aside.every((names) => names.length === 1)).toBe(true);
    for (const read of await Promise.all(during)) expect(read!.directory).toBe(packaged.directory);
    const after = (await readOnOtherNode())!;
    expect(after.directory).toBe(replaced.directory);
    expect(after.renditions.map((r) => [r.width, r.height])).toEqual([[480, 270]]);
    expect(after.keyHex).not.toBe(seen.keyHex);
    expect(existsSync(join(media, packaged.directory))).toBe(false);
    expect(readdirSync(join(media, replaced.directory, '..'))).toEqual([replaced.directory.split('/').pop()]);
  }, 120_000);
});
