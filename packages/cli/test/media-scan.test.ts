import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dialects } from '../../server/test/dialects.ts';
import { startTestServer, type TestServer } from '../../server/test/harness.ts';
import { ffmpegAvailable } from '../../server/test/system-tools.ts';
import { runCli } from './run-cli.ts';

const haveFfmpeg = ffmpegAvailable('the maqam media scan test');

function ffmpeg(...args: string[]): void {
  const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
}

/** A tagged tone, as a ripper or a store would write it. */
function track(file: string, tags: Record<string, string>, options: { frequency?: number; cover?: string } = {}): void {
  const metadata = Object.entries(tags).flatMap(([key, value]) => ['-metadata', `${key}=${value}`]);
  const tone = ['-f', 'lavfi', '-i', `sine=frequency=${options.frequency ?? 440}:duration=3`];
  if (options.cover) {
    ffmpeg(...tone, '-i', options.cover, '-map', '0:a', '-map', '1:v', '-c:v', 'mjpeg', '-disposition:v', 'attached_pic', '-id3v2_version', '3', ...metadata, file);
  } else {
    ffmpeg(...tone, ...metadata, file);
  }
}

/**
 * `maqam media scan` on a folder made with ffmpeg: two tagged MP3s of one
 * album (Arabic tags, an embedded cover, a sidecar LRC), a FLAC of another
 * with an ISRC and a lyrics tag, and a corrupt file; read back through the API.
 */
describe.skipIf(!haveFfmpeg).each(dialects.map((d) => [d.name, d] as const))('maqam media scan on %s', (_name, dialect) => {
  let server: TestServer;
  let dir: string;
  let music: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-scan-'));
    music = join(dir, 'music');
    mkdirSync(join(music, 'Amr Diab', 'Tamally Maak'), { recursive: true });
    mkdirSync(join(music, 'Adele'), { recursive: true });
    const cover = join(dir, 'cover.png');
    ffmpeg('-f', 'lavfi', '-i', 'color=c=0x0b6e4f:s=320x240:d=1', '-frames:v', '1', cover);
    const album = { album: 'تملي معاك', album_artist: 'عمرو دياب', artist: 'عمرو دياب', date: '2000-06-01', genre: 'Arabic Pop' };
    track(join(music, 'Amr Diab', 'Tamally Maak', '01 - tamally.mp3'), { ...album, title: 'تملي معاك', track: '1/2' }, { cover });
    track(join(music, 'Amr Diab', 'Tamally Maak', '02 - wala ala baloh.mp3'), { ...album, title: 'ولا على باله', track: '2/2' });
    writeFileSync(join(music, 'Amr Diab', 'Tamally Maak', '02 - wala ala baloh.lrc'), '[ar:عمرو دياب]\n[00:00.50]ولا على باله\n[00:02.00]ولا على باله أبداً\n');
    track(join(music, 'Adele', 'hello.flac'), {
      title: 'Hello', artist: 'Adele feat. عمرو', album: '25', date: '2015', genre: 'Pop Soul;R&B;pop_soul', ISRC: 'GB-BKS-15-00214', LYRICS: 'Hello, it\'s me\nI was wondering',
    });
    writeFileSync(join(music, 'broken.mp3'), Buffer.from('ID3 this is not audio at all'.repeat(40)));
    writeFileSync(join(music, 'notes.txt'), 'not audio: not scanned');

    server = await startTestServer(dialect, { MAQAM_MEDIA_DIR: join(dir, 'media') });
    env = { DATABASE_URL: server.databaseUrl, MAQAM_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'silent' };
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const scan = async () => {
    const result = await runCli(env, ['media', 'scan', music, '--json', '--concurrency', '2']);
    return { code: result.code, summary: JSON.parse(result.stdout), stderr: result.stderr };
  };
  const get = async (url: string) => {
    const res = await server.call({ method: 'GET', url, headers: { 'accept-language': 'ar' } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json();
  };

  /** The scanned album: of the search's 'تملي معاك' albums, the one whose cover the server keeps (the fixture has another). */
  const scannedAlbums = async () =>
    (await get(`/v1/search?${new URLSearchParams({ q: 'تملي معاك', types: 'album' })}`)).results
      .map((result: { album: { artwork: { url: string }[] } }) => result.album)
      .filter((album: { artwork: { url: string }[] }) => album.artwork.some((image) => image.url.includes('/artwork/albums/')));
  const scannedAlbum = async () => {
    await expect.poll(async () => (await scannedAlbums()).length, { timeout: 10_000 }).toBe(1);
    return (await scannedAlbums())[0];
  };

  it('catalogs and packages every readable file, reports the corrupt one, and goes on', async () => {
    const { code, summary } = await scan();
    expect(code).toBe(1);
    expect(summary).toEqual({
      files: 4, packaged: 3, unchanged: 0, failed: 1, artists: 3, albums: 2, songs: 3, lyrics: 2,
      problems: [{ file: 'broken.mp3', message: expect.stringMatching(/could not read|no audio/) }],
      partialDates: [{ file: join('Adele', 'hello.flac'), date: '2015', precision: 'year', releaseDate: '2015-01-01' }],
      ids: {
        artists: expect.arrayContaining([{ id: expect.stringMatching(/^artist-/), name: 'Adele' }, { id: expect.stringMatching(/^artist-/), name: 'عمرو' }]),
        albums: expect.arrayContaining([{ id: expect.stringMatching(/^album-/), title: 'تملي معاك' }]),
        songs: expect.arrayContaining([{ id: expect.stringMatching(/^song-/), file: join('Adele', 'hello.flac') }]),
      },
    });
    expect(summary.ids.songs).toHaveLength(3);

    // The album, found as a listener would, with its cover, its tracks in order and their lyrics. Its genre is
    // spelled as imports spell it (issue 51, item 7: the tag's "Arabic Pop" was written "arabic pop").
    const album = await scannedAlbum();
    expect(album).toMatchObject({ title: { value: 'تملي معاك' }, releaseDate: '2000-06-01', trackCount: 2, genres: ['arabic-pop'], artists: [{ name: { value: 'عمرو دياب' } }] });
    const coverUrl = new URL(album.artwork[0].url);
    const coverImage = await server.app.inject({ method: 'GET', url: coverUrl.pathname });
    expect([coverImage.statusCode, coverImage.headers['content-type'], coverImage.rawPayload.subarray(0, 2).toString('hex')]).toEqual([200, 'image/jpeg', 'ffd8']);
    const tracks = (await get(`/v1/music/albums/${encodeURIComponent(album.id.value)}/tracks`)).tracks;
    expect(tracks.map((song: { title: { value: string }; trackNumber: number }) => [song.trackNumber, song.title.value])).toEqual([[1, 'تملي معاك'], [2, 'ولا على باله']]);
    expect(tracks[0].durationMs).toBeGreaterThan(2900);
    // Each song shows its album's cover.
    expect(tracks.map((song: { artwork: unknown }) => song.artwork)).toEqual([album.artwork, album.artwork]);
    expect(tracks.map((song: { hasLyrics: boolean }) => song.hasLyrics)).toEqual([false, true]);
    const synced = await get(`/v1/music/songs/${encodeURIComponent(tracks[1].id.value)}/lyrics`);
    expect(synced.syncedLyrics.lines).toEqual([{ text: 'ولا على باله', startTimeMs: '500' }, { text: 'ولا على باله أبداً', startTimeMs: '2000' }]);

    const hello = (await get('/v1/search?q=Hello&types=song')).results.map((r: { song: unknown }) => r.song)
      .find((song: { isrc: string }) => song.isrc === 'GBBKS1500214');
    // A date tag of a year alone: the catalog takes whole dates, so January 1st, listed in partialDates above.
    expect(hello).toMatchObject({ title: { value: 'Hello' }, releaseDate: '2015-01-01', genres: ['pop-soul', 'r-and-b'] });
    // "Adele feat. عمرو" credits two artists, by the ids the summary gave.
    expect(hello.artists.map((artist: { id: { value: string }; name: { value: string } }) => [artist.id.value, artist.name.value])).toEqual([
      [summary.ids.artists.find((a: { name: string }) => a.name === 'Adele').id, 'Adele'],
      [summary.ids.artists.find((a: { name: string }) => a.name === 'عمرو').id, 'عمرو'],
    ]);
    expect(summary.ids.songs.find((song: { file: string }) => song.file === join('Adele', 'hello.flac')).id).toBe(hello.id.value);
    expect((await get(`/v1/music/songs/${encodeURIComponent(hello.id.value)}/lyrics`)).lyrics.lines).toEqual(["Hello, it's me", 'I was wondering']);
  }, 120_000);

  it('resumes: a rescan skips what is packaged from the same bytes and updates, not duplicates, what changed', async () => {
    const again = (await scan()).summary;
    // The same records are written again (upserts by the ids the tags give), nothing is packaged again.
    expect(again).toMatchObject({ files: 4, packaged: 0, unchanged: 3, failed: 1, artists: 3, albums: 2, songs: 3 });
    const album = await scannedAlbum();
    expect((await get(`/v1/music/albums/${encodeURIComponent(album.id.value)}/tracks`)).tracks).toHaveLength(2);

    // The same song, re-ripped: new bytes, same tags, so the same song id.
    track(join(music, 'Amr Diab', 'Tamally Maak', '01 - tamally.mp3'), { album: 'تملي معاك', album_artist: 'عمرو دياب', artist: 'عمرو دياب', title: 'تملي معاك', track: '1/2', date: '2000-06-01' }, { frequency: 660 });
    rmSync(join(music, 'broken.mp3'));
    const changed = await scan();
    expect(changed.code).toBe(0);
    expect(changed.summary).toMatchObject({ files: 3, packaged: 1, unchanged: 2, failed: 0, songs: 3, problems: [] });
    expect((await get(`/v1/music/albums/${encodeURIComponent(album.id.value)}/tracks`)).tracks).toHaveLength(2);
  }, 120_000);

  it('prints the ids it wrote, a line each, for people, and says which dates were a year alone', async () => {
    const result = await runCli(env, ['media', 'scan', music]);
    expect(result.stderr).toContain(`1 file gives only a year or a month as its date (${join('Adele', 'hello.flac')}: 2015); the catalog takes whole dates, so it is dated the first day of it (2015-01-01)`);
    expect(result.stdout).toMatch(/^album {2}album-\S+ {2}تملي معاك$/m);
    expect(result.stdout).toMatch(/^artist artist-\S+ {2}عمرو$/m);
    expect(result.stdout).toMatch(new RegExp(`^song {3}song-\\S+ {2}${join('Adele', 'hello.flac').replace('.', '\\.')}$`, 'm'));
  }, 60_000);

  it('says how it is used', async () => {
    expect((await runCli(env, ['media', 'scan'])).code).toBe(2);
    expect((await runCli(env, ['media', 'scan', join(dir, 'nowhere')])).stderr).toContain('no such folder');
    expect((await runCli(env, ['media', 'scan', '--help'])).stdout).toContain('.lrc');
  });
});

/**
 * Regression (issue 36, item 4): a `.lrc` sidecar that was a link out of the
 * scanned folder was followed, and GetLyrics served its text. Nothing that
 * resolves outside the folder is read: sidecars, covers or audio, linked
 * absolutely or through `..`; a link that stays inside is followed.
 */
describe.skipIf(!haveFfmpeg)('maqam media scan reads nothing outside the folder', () => {
  let server: TestServer;
  let dir: string;
  let music: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-scan-links-'));
    music = join(dir, 'music');
    const outside = join(dir, 'outside');
    mkdirSync(join(music, 'Linked', 'Out'), { recursive: true });
    mkdirSync(join(music, 'Linked', 'In'), { recursive: true });
    mkdirSync(outside, { recursive: true });
    writeFileSync(join(outside, 'secret.lrc'), '[00:00.50]the server\'s secret\n');
    ffmpeg('-f', 'lavfi', '-i', 'color=c=0xff0000:s=64x64:d=1', '-frames:v', '1', join(outside, 'cover.png'));
    track(join(outside, 'elsewhere.mp3'), { title: 'Elsewhere', artist: 'Outsider', album: 'Outside' });
    track(join(music, 'Linked', 'Out', '01 - out.mp3'), { title: 'Out', artist: 'Linker', album: 'Out', track: '1' });
    track(join(music, 'Linked', 'In', '01 - in.mp3'), { title: 'In', artist: 'Linker', album: 'In', track: '1' });
    track(join(music, 'Linked', 'In', '02 - in too.mp3'), { title: 'In too', artist: 'Linker', album: 'In', track: '2' });
    // Out: its sidecar through `..`, its cover by absolute path; both outside.
    symlinkSync('../../../outside/secret.lrc', join(music, 'Linked', 'Out', '01 - out.lrc'));
    symlinkSync(join(outside, 'cover.png'), join(music, 'Linked', 'Out', 'cover.png'));
    // In: a sidecar that is a link to another file inside the folder is read.
    writeFileSync(join(music, 'Linked', 'In', 'words.txt'), '[00:00.50]inside words\n');
    symlinkSync('words.txt', join(music, 'Linked', 'In', '01 - in.lrc'));
    symlinkSync('../Out/../../../outside/secret.lrc', join(music, 'Linked', 'In', '02 - in too.lrc'));
    // Audio linked from outside, as a file and as a folder.
    symlinkSync(join(outside, 'elsewhere.mp3'), join(music, 'elsewhere.mp3'));
    symlinkSync(outside, join(music, 'outside-folder'));

    server = await startTestServer(dialects[0]!, { MAQAM_MEDIA_DIR: join(dir, 'media') });
    env = { DATABASE_URL: server.databaseUrl, MAQAM_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'silent' };
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('skips links that lead out, follows the one that stays in, and serves nothing from outside', async () => {
    const result = await runCli(env, ['media', 'scan', music, '--json', '--concurrency', '2']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ files: 3, packaged: 3, failed: 0, songs: 3, lyrics: 1, problems: [] });
    const search = async (q: string, types: string) => {
      const res = await server.call({ method: 'GET', url: `/v1/search?${new URLSearchParams({ q, types })}` });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().results as Record<string, { id: { value: string }; title?: { value: string }; hasLyrics?: boolean; artwork?: unknown[] }>[];
    };
    const songs = (await search('Linker', 'song')).map((r) => r.song!);
    expect(Object.fromEntries(songs.map((song) => [song.title!.value, song.hasLyrics]))).toEqual({ In: true, 'In too': false, Out: false });
    const inside = songs.find((song) => song.title!.value === 'In')!;
    const lyrics = await server.call({ method: 'GET', url: `/v1/music/songs/${encodeURIComponent(inside.id.value)}/lyrics` });
    expect(lyrics.json().syncedLyrics.lines).toEqual([{ text: 'inside words', startTimeMs: '500' }]);
    for (const song of songs.filter((s) => s.title!.value !== 'In')) {
      const res = await server.call({ method: 'GET', url: `/v1/music/songs/${encodeURIComponent(song.id.value)}/lyrics` });
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('secret');
    }
    const outAlbum = (await search('Out', 'album')).map((r) => r.album!).find((album) => album.title!.value === 'Out')!;
    expect(outAlbum.artwork).toEqual([]);
    expect(await search('Elsewhere', 'song')).toEqual([]);
  }, 120_000);
});

/**
 * Two files of one recording in one folder (a FLAC and an MP3 with one ISRC) are one song. Packaged at once they
 * replaced each other's directories and, on PostgreSQL, deadlocked recording the song's qualities: a song's files
 * are packaged one after another, in path order, the last being the song's media.
 */
describe.runIf(haveFfmpeg && dialects.some((d) => d.name === 'postgres'))('maqam media scan of two files of one song', () => {
  let server: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-scan-twice-'));
    mkdirSync(join(dir, 'music'));
    const tags = { title: 'Hello', artist: 'Adele', album: '25', date: '2015', ISRC: 'GB-BKS-15-00214' };
    track(join(dir, 'music', 'hello.flac'), tags);
    track(join(dir, 'music', 'hello.mp3'), tags, { frequency: 880 });
    server = await startTestServer(dialects.find((d) => d.name === 'postgres')!, { MAQAM_MEDIA_DIR: join(dir, 'media') });
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('packages both, one after the other, and keeps the last in path order as the song\'s media', async () => {
    const env = { DATABASE_URL: server.databaseUrl, MAQAM_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'silent' };
    const result = await runCli(env, ['media', 'scan', join(dir, 'music'), '--json', '--concurrency', '2']);
    expect(result.code, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect([summary.songs, summary.packaged, summary.failed, summary.problems]).toEqual([1, 2, 0, []]);
    const songId: string = summary.ids.songs[0].id;
    // hello.mp3 after hello.flac: lossy tiers only, none lossless left from the FLAC.
    const qualities = (await server.storage.db.selectFrom('song_media').select('quality').where('song_id', '=', songId).orderBy('quality').execute()).map((row) => row.quality);
    expect(qualities.length).toBeGreaterThan(0);
    expect(qualities).not.toContain('AUDIO_QUALITY_LOSSLESS');
  });
});
