import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { createDecipheriv } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addVideo, createUsersService } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';
import { ffmpegAvailable } from '../system-tools.ts';
import { importRecords, videoFixtureRecords } from '../video/video-fixtures.ts';

const haveFfmpeg = ffmpegAvailable('the video streaming tests');

function ffmpeg(...args: string[]): void {
  const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
}

/**
 * AcquireVideoStream (issue 54, item 2; contract section 15) over a title
 * packaged for real (1280x720, 8 s, Arabic and English audio, English
 * subtitles): the master playlist Maqam writes, media playlists whose every
 * segment and key is signed for the viewing window, a segment that decrypts
 * with the key the key URL answers, billing as music's, quality ceilings,
 * and the parental rule at acquisition and again at every key request.
 */
describe.skipIf(!haveFfmpeg).each(dialects.map((d) => [d.name, d] as const))('AcquireVideoStream on %s', (_name, dialect) => {
  let server: TestServer;
  let dir: string;
  let streamToken: string;
  let username: string;
  let now = Date.now();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-video-stream-'));
    const media = join(dir, 'media');
    server = await startTestServer(dialect, { MAQAM_MEDIA_DIR: media, MAQAM_STREAM_URL_TTL: '300' }, { clock: () => now });
    expect((await importRecords(server.storage, videoFixtureRecords())).errors).toEqual([]);
    const accounts = await seedAccounts(server);
    username = accounts.user.username;
    streamToken = (await tokensFor(server, accounts.client.clientId, username, 'read stream')).access_token;
    const source = join(dir, 'source.mp4');
    ffmpeg('-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25:duration=8', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=8',
      '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', source);
    ffmpeg('-f', 'lavfi', '-i', 'sine=frequency=880:duration=8', join(dir, 'english.wav'));
    writeFileSync(join(dir, 'en.srt'), '1\n00:00:01,000 --> 00:00:03,000\nThe house of the vine\n');
    const options = { audio: [{ language: 'en', file: join(dir, 'english.wav') }], subtitles: [{ language: 'en', file: join(dir, 'en.srt') }] };
    await addVideo(server.storage.db, media, { kind: 'movie', id: 'movie-all' }, source, options);
    await addVideo(server.storage.db, media, { kind: 'episode', id: 'ep-d1-1' }, source, {});
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acquire = (body: unknown) => server.app.inject({
    method: 'POST', url: '/v1/streaming/video',
    headers: { authorization: `Bearer ${streamToken}`, 'content-type': 'application/json', 'accept-language': 'en' }, payload: JSON.stringify(body),
  });
  const get = (url: string, headers: Record<string, string> = {}) => server.app.inject({ method: 'GET', url: new URL(url).pathname, headers });
  const ledger = async () => server.storage.db.selectFrom('stream_ledger').select(['song_id', 'content_kind', 'quality']).where('content_kind', '!=', 'song').execute();

  it('answers a signed master playlist of the packaged renditions, audio group and subtitles, and bills once a window', async () => {
    const res = await acquire({ movieId: { value: 'movie-all' } });
    expect(res.statusCode, res.body).toBe(200);
    const { stream } = res.json();
    expect(stream.availableQualities.map((q: { label: string }) => q.label)).toEqual(['VIDEO_QUALITY_SD', 'VIDEO_QUALITY_HD']);
    expect(res.headers['cache-control']).toBe('no-store');
    const master = await get(stream.manifestUrl);
    expect(master.statusCode).toBe(200);
    expect(master.headers['content-type']).toContain('application/vnd.apple.mpegurl');
    const text = master.body;
    expect(text.match(/#EXT-X-STREAM-INF:[^\n]+/g)).toHaveLength(2);
    expect(text).toMatch(/#EXT-X-STREAM-INF:BANDWIDTH=\d+,AVERAGE-BANDWIDTH=\d+,CODECS="avc1\.[0-9a-f]{6},mp4a\.40\.2",RESOLUTION=1280x720,FRAME-RATE=25\.000,CLOSED-CAPTIONS=NONE,AUDIO="audio",SUBTITLES="subs"/);
    expect(text.match(/TYPE=AUDIO[^\n]+DEFAULT=YES/g)).toHaveLength(1);
    expect(text).toMatch(/TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="ar",NAME="العربية",DEFAULT=YES/);
    expect(text).toMatch(/TYPE=AUDIO,GROUP-ID="audio",LANGUAGE="en",NAME="English",DEFAULT=NO/);
    expect(text).toMatch(/TYPE=SUBTITLES,GROUP-ID="subs",LANGUAGE="en",NAME="English",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO/);
    expect(text.match(/#EXT-X-I-FRAME-STREAM-INF:[^\n]+/g)).toHaveLength(2);
    expect(await ledger()).toEqual([{ song_id: 'movie-all', content_kind: 'movie', quality: 'VIDEO_QUALITY_HD' }]);
    expect((await acquire({ movieId: { value: 'movie-all' } })).statusCode).toBe(200);
    expect(await ledger()).toHaveLength(1);
  });

  it('signs every segment and the key of a media playlist; a segment decrypts with the key and serves ranges', async () => {
    const { stream } = (await acquire({ movieId: { value: 'movie-all' } })).json();
    const master = (await get(stream.manifestUrl)).body;
    const variant = master.split('\n').find((line) => line.startsWith('http') && line.includes('/v720/'))!;
    const playlist = await get(variant);
    expect(playlist.statusCode).toBe(200);
    const key = /#EXT-X-KEY:METHOD=AES-128,URI="([^"]+)",IV=0x([0-9a-f]{32})/i.exec(playlist.body)!;
    expect(key).not.toBeNull();
    const segments = playlist.body.split('\n').filter((line) => line.startsWith('http'));
    expect(segments.length).toBeGreaterThan(0);
    const keyAnswer = await server.app.inject({ method: 'GET', url: new URL(key[1]!).pathname });
    expect(keyAnswer.statusCode).toBe(200);
    expect(keyAnswer.rawPayload).toHaveLength(16);
    expect(keyAnswer.headers['cache-control']).toBe('no-store');
    const segment = await server.app.inject({ method: 'GET', url: new URL(segments[0]!).pathname });
    expect(segment.statusCode).toBe(200);
    expect(segment.headers['content-type']).toBe('video/mp2t');
    const decipher = createDecipheriv('aes-128-cbc', keyAnswer.rawPayload, Buffer.from(key[2]!, 'hex'));
    const clear = Buffer.concat([decipher.update(segment.rawPayload), decipher.final()]);
    expect(clear[0]).toBe(0x47); // an MPEG-TS sync byte: the key and IV are the segment's
    const range = await server.app.inject({ method: 'GET', url: new URL(segments[0]!).pathname, headers: { range: 'bytes=0-187' } });
    expect(range.statusCode).toBe(206);
    expect(range.rawPayload).toHaveLength(188);
    // Tampered or foreign: 403 in the contract's shape.
    const tampered = await server.app.inject({ method: 'GET', url: new URL(segments[0]!).pathname.replace('/v720/', '/v1080/') });
    expect(tampered.statusCode).toBe(403);
  });

  it('keeps a stream below maxQuality: the master lists no better variant and its playlists are refused', async () => {
    const res = await acquire({ episodeId: { value: 'ep-d1-1' }, maxQuality: 'VIDEO_QUALITY_SD' });
    expect(res.statusCode, res.body).toBe(200);
    const master = (await get(res.json().stream.manifestUrl)).body;
    expect(master).not.toContain('/v720/');
    const sd = master.split('\n').find((line) => line.startsWith('http') && line.includes('/v480/'))!;
    expect((await get(sd)).statusCode).toBe(200);
    expect((await get(sd.replace('/v480/', '/v720/'))).statusCode).toBe(403);
  });

  it('plays the whole viewing window after the manifest URL expires, and refuses every URL after it', async () => {
    const { stream } = (await acquire({ movieId: { value: 'movie-all' } })).json();
    const master = (await get(stream.manifestUrl)).body;
    const variant = master.split('\n').find((line) => line.startsWith('http'))!;
    const start = now;
    try {
      now = start + 301_000;
      expect((await get(stream.manifestUrl)).statusCode).toBe(403);
      expect((await get(variant)).statusCode).toBe(200);
      // The window is the title's duration as the catalog says (90 minutes) and MAQAM_STREAM_GRACE (4 hours).
      now = start + 5_400_000 + 14_400_000 - 1_000;
      expect((await get(variant)).statusCode).toBe(200);
      now = start + 5_400_000 + 14_400_000 + 1_000;
      expect((await get(variant)).statusCode).toBe(403);
    } finally {
      now = start;
    }
  });

  it("refuses a title above the viewer's cap with a 403 that says why, and its key once the cap is lowered mid-stream", async () => {
    const { stream } = (await acquire({ movieId: { value: 'movie-all' } })).json();
    const master = (await get(stream.manifestUrl)).body;
    const playlist = (await get(master.split('\n').find((line) => line.startsWith('http') && line.includes('/v480/'))!)).body;
    const keyUrl = /URI="([^"]+)"/.exec(playlist)![1]!;
    expect((await get(keyUrl)).statusCode).toBe(200);
    const users = createUsersService(server.storage.db);
    try {
      await users.setMaxAgeRating(username, 'AGE_RATING_ALL');
      const episode = await acquire({ episodeId: { value: 'ep-d1-1' } });
      expect(episode.statusCode).toBe(403);
      expect(episode.json().message).toBe('"ep-d1-1" is rated AGE_RATING_13, above this account\'s parental limit of AGE_RATING_ALL.');
      expect((await get(keyUrl)).statusCode).toBe(200); // a film for all ages still plays
      await users.setMaxAgeRating(username, 'none');
      const { stream: episodeStream } = (await acquire({ episodeId: { value: 'ep-d1-1' } })).json();
      const episodeMaster = (await get(episodeStream.manifestUrl)).body;
      const episodeKey = /URI="([^"]+)"/.exec((await get(episodeMaster.split('\n').find((line) => line.startsWith('http') && line.includes('/v480/'))!)).body)![1]!;
      expect((await get(episodeKey)).statusCode).toBe(200);
      await users.setMaxAgeRating(username, 'AGE_RATING_7');
      expect((await get(episodeKey)).statusCode).toBe(403);
    } finally {
      await users.setMaxAgeRating(username, 'none');
    }
  });

  it('answers 404 for a title without video or unknown, and 400 unless exactly one title is named', async () => {
    expect((await acquire({ movieId: { value: 'movie-unrated' } })).json()).toMatchObject({ code: 'ERROR_CODE_NOT_FOUND', message: '"movie-unrated" has no playable video yet.' });
    expect((await acquire({ movieId: { value: 'nope' } })).statusCode).toBe(404);
    const both = await acquire({ movieId: { value: 'movie-all' }, episodeId: { value: 'ep-d1-1' } });
    expect(both.statusCode).toBe(400);
    expect((await acquire({})).statusCode).toBe(400);
  });
});
