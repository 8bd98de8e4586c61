import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { addMedia, buildApp, loadConfig } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';
import { ffmpegAvailable } from '../system-tools.ts';

const haveFfmpeg = ffmpegAvailable('the streaming tests');

/** A 13-second stereo tone: three 6 s HLS segments per quality. */
function tone(dir: string): string {
  const file = join(dir, 'tone.wav');
  const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=440:duration=13', '-ac', '2', file]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
  return file;
}

describe.skipIf(!haveFfmpeg).each(dialects.map((d) => [d.name, d] as const))('AcquireMusicStream on %s', (_name, dialect) => {
  let server: TestServer;
  let dir: string;
  let accounts: Awaited<ReturnType<typeof seedAccounts>>;
  let streamToken: string;
  let readToken: string;
  // The server's clock, moved on where a test needs another instant.
  let now = Date.now();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-media-'));
    server = await startTestServer(dialect, { MAQAM_MEDIA_DIR: join(dir, 'media') }, { clock: () => now });
    accounts = await seedAccounts(server);
    await addMedia(server.storage.db, join(dir, 'media'), 'song-ar', tone(dir));
    streamToken = (await tokensFor(server, accounts.client.clientId, accounts.user.username, 'read stream')).access_token;
    readToken = (await tokensFor(server, accounts.readOnly.clientId, accounts.user.username, 'read')).access_token;
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const acquire = (body: unknown, headers: Record<string, string> = { authorization: `Bearer ${streamToken}` }) =>
    server.app.inject({ method: 'POST', url: '/v1/streaming/music', headers: { 'content-type': 'application/json', 'accept-language': 'en', ...headers }, payload: JSON.stringify(body) });
  const ledgerRows = async () => Number((await server.storage.db.selectFrom('stream_ledger').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  const pathOf = (url: string) => new URL(url).pathname;

  it('refuses API keys and tokens without the stream scope with 403', async () => {
    const key = await acquire({ songId: { value: 'song-ar' } }, { 'x-api-key': server.apiKey });
    expect(key.statusCode).toBe(403);
    expect(key.json().code).toBe('ERROR_CODE_PERMISSION_DENIED');
    const read = await acquire({ songId: { value: 'song-ar' } }, { authorization: `Bearer ${readToken}` });
    expect(read.statusCode).toBe(403);
    expect(read.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="stream"');
    expect((await acquire({ songId: { value: 'song-ar' } }, {})).statusCode).toBe(401);
  });

  it('answers an unknown song, and a song without media, with 404', async () => {
    const unknown = await acquire({ songId: { value: 'no-such-song' } });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('ERROR_CODE_NOT_FOUND');
    const silent = await acquire({ songId: { value: 'song-en' } });
    expect(silent.statusCode).toBe(404);
    expect(silent.json().message).toBe('Song "song-en" has no playable media yet.');
  });

  it('validates the body', async () => {
    const res = await acquire({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_ULTRA' });
    expect(res.statusCode).toBe(400);
    expect(res.json().violations[0].field).toBe('maxQuality');
  });

  it('answers the best quality with a signed playlist, bills once per window, and bills another quality', async () => {
    const before = await ledgerRows();
    const first = await acquire({ songId: { value: 'song-ar' } });
    expect(first.statusCode).toBe(200);
    expect(first.json()).toEqual({
      stream: {
        manifestUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:8080\/v1\/streaming\/hls\/[A-Za-z0-9_-]+\/index\.m3u8$/),
        expiresInSeconds: 300,
        drmScheme: 'DRM_SCHEME_UNSPECIFIED',
        licenseUrl: '',
        drmParams: {},
        availableQualities: [
          { label: 'AUDIO_QUALITY_LOW', bitrateKbps: 64, codec: 'aac' },
          { label: 'AUDIO_QUALITY_STANDARD', bitrateKbps: 128, codec: 'aac' },
          { label: 'AUDIO_QUALITY_HIGH', bitrateKbps: 256, codec: 'aac' },
          { label: 'AUDIO_QUALITY_LOSSLESS', bitrateKbps: 1411, codec: 'flac' },
        ],
      },
    });
    expect(await ledgerRows()).toBe(before + 1); // written before the answer
    now += 5;
    const again = await acquire({ song_id: { value: 'song-ar' } }); // proto3 snake_case too
    expect(again.statusCode).toBe(200);
    expect(again.json().stream.manifestUrl).not.toBe(first.json().stream.manifestUrl);
    expect(await ledgerRows()).toBe(before + 1);
    const low = await acquire({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_LOW' });
    expect(low.statusCode).toBe(200);
    expect(await ledgerRows()).toBe(before + 2);
    const ledger = await server.storage.db.selectFrom('stream_ledger').selectAll().orderBy('acquired_at').execute();
    expect(ledger.at(-1)).toMatchObject({ user_id: accounts.user.id, client_id: accounts.client.clientId, song_id: 'song-ar', quality: 'AUDIO_QUALITY_LOW' });
  });

  it('bills once for 10 concurrent acquisitions of the same stream', async () => {
    const { access_token } = await tokensFor(server, accounts.client.clientId, (await seedAccounts(server)).user.username);
    const before = await ledgerRows();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => acquire({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_STANDARD' }, { authorization: `Bearer ${access_token}` })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(await ledgerRows()).toBe(before + 1);
  });

  it('serves the playlist with signed segment URLs, and segments with Range, ETag and 206', async () => {
    const manifest = (await acquire({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_HIGH' })).json().stream.manifestUrl as string;
    const playlist = await server.app.inject(pathOf(manifest));
    expect(playlist.statusCode).toBe(200);
    expect(playlist.headers['content-type']).toMatch(/^application\/vnd\.apple\.mpegurl/);
    expect(playlist.body).toMatch(/^#EXTM3U/);
    const segments = playlist.body.split('\n').filter((line) => line.startsWith('http'));
    expect(segments.length).toBeGreaterThanOrEqual(3);
    // Signed with a token of their own, which outlives the manifest's (one-hour-song.test.ts).
    expect(segments[0]).toMatch(/^http:\/\/127\.0\.0\.1:8080\/v1\/streaming\/hls\/[A-Za-z0-9_-]+\/seg000\.ts$/);
    expect(segments[0]).not.toBe(manifest.replace('index.m3u8', 'seg000.ts'));
    expect(segments.every((segment) => segment.split('/')[6] === segments[0]!.split('/')[6])).toBe(true);

    const whole = await server.app.inject(pathOf(segments[0]!));
    expect(whole.statusCode).toBe(200);
    expect(whole.headers['accept-ranges']).toBe('bytes');
    // Weak: a validator made of the file's size and time (RFC 9110 §8.8.1), which is what @fastify/send makes.
    expect(whole.headers.etag).toMatch(/^W\/"[0-9a-f]+-[0-9a-f]+"$/);
    expect(whole.headers['cache-control']).toMatch(/^private, max-age=\d+$/);
    expect(Number(whole.headers['content-length'])).toBe(whole.rawPayload.length);
    const size = whole.rawPayload.length;
    expect(whole.rawPayload[0]).toBe(0x47); // MPEG-TS sync byte
    expect(whole.headers['content-type']).toBe('video/mp2t');

    const part = await server.app.inject({ url: pathOf(segments[0]!), headers: { range: 'bytes=0-99' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(part.rawPayload.equals(whole.rawPayload.subarray(0, 100))).toBe(true);
    const tail = await server.app.inject({ url: pathOf(segments[0]!), headers: { range: 'bytes=-10' } });
    expect(tail.rawPayload.equals(whole.rawPayload.subarray(size - 10))).toBe(true);
    const outside = await server.app.inject({ url: pathOf(segments[0]!), headers: { range: `bytes=${size}-` } });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${size}`);
    expect(outside.json()).toMatchObject({ code: 'ERROR_CODE_INVALID_REQUEST', requestId: expect.any(String) });
    const unchanged = await server.app.inject({ url: pathOf(segments[0]!), headers: { 'if-none-match': String(whole.headers.etag) } });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.headers.etag).toBe(whole.headers.etag);
    expect(unchanged.rawPayload.length).toBe(0);
    const otherVersion = await server.app.inject({ url: pathOf(segments[0]!), headers: { 'if-match': '"another"' } });
    expect(otherVersion.statusCode).toBe(412);
    expect(otherVersion.json()).toMatchObject({ code: 'ERROR_CODE_CONFLICT', requestId: expect.any(String) });
  });

  it('streams LOSSLESS as FLAC in fragmented MP4, its initialization segment signed like the rest', async () => {
    const answer = (await acquire({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_LOSSLESS' })).json();
    const manifest = answer.stream.manifestUrl as string;
    const playlist = (await server.app.inject(pathOf(manifest))).body;
    const map = /^#EXT-X-MAP:URI="([^"]+)"$/m.exec(playlist);
    const segments = playlist.split('\n').filter((line) => line.startsWith('http'));
    expect(segments[0]).toMatch(/\/v1\/streaming\/hls\/[A-Za-z0-9_-]+\/seg000\.m4s$/);
    expect(map?.[1]).toBe(segments[0]!.replace('seg000.m4s', 'init.mp4'));

    const init = await server.app.inject(pathOf(map![1]!));
    expect(init.statusCode).toBe(200);
    expect(init.headers['content-type']).toBe('audio/mp4');
    expect(init.rawPayload.subarray(4, 8).toString('latin1')).toBe('ftyp');
    expect(init.rawPayload.includes(Buffer.from('fLaC'))).toBe(true); // the FLAC sample entry
    const first = await server.app.inject({ url: pathOf(segments[0]!), headers: { range: 'bytes=0-15' } });
    expect(first.statusCode).toBe(206);
    expect(first.headers['content-type']).toBe('audio/mp4');
    expect(['styp', 'moof']).toContain(first.rawPayload.subarray(4, 8).toString('latin1'));
  });

  // Regression (issue 8, item 11): at LOG_LEVEL=debug the request lines carried stream tokens in full.
  it('logs stream URLs with their token redacted', async () => {
    let log = '';
    const sink = new Writable({ write(chunk, _encoding, done) { log += chunk.toString(); done(); } });
    const config = loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_MEDIA_DIR: join(dir, 'media'), LOG_LEVEL: 'debug' });
    const logged = await buildApp({ config, storage: server.storage, logger: { level: 'debug', stream: sink } });
    try {
      const manifestUrl: string = (await acquire({ songId: { value: 'song-ar' } })).json().stream.manifestUrl;
      const token = pathOf(manifestUrl).split('/')[4]!;
      expect((await logged.inject(pathOf(manifestUrl))).statusCode).toBe(200);
      expect((await logged.inject(`/v1/music/artists/artist-ar/related?page_token=${token}`)).statusCode).toBe(401);
      expect(log).toContain('/v1/streaming/hls/[redacted]/index.m3u8');
      expect(log).toContain('page_token=[redacted]');
      expect(log).not.toContain(token);
    } finally {
      await logged.close();
    }
  });

  it('refuses tampered URLs and other names with 403', async () => {
    const manifest = pathOf((await acquire({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_HIGH' })).json().stream.manifestUrl);
    const [, , , , token] = manifest.split('/');
    // Regression (issue 8, item 11): other spellings of one signature were accepted, and the payload named the user.
    for (const variant of tokenVariants(token!)) expect((await server.app.inject(manifest.replace(token!, variant))).statusCode, variant).toBe(403);
    expect(Buffer.from(token!, 'base64url').includes(Buffer.from(accounts.user.id))).toBe(false);
    expect((await server.app.inject(manifest.replace('index.m3u8', '..%2Findex.m3u8'))).statusCode).toBe(403);
    // The manifest's token opens the playlist only, and a segment's token segments only.
    expect((await server.app.inject(manifest.replace('index.m3u8', 'seg000.ts'))).statusCode).toBe(403);
    const segment = pathOf((await server.app.inject(manifest)).body.split('\n').find((line) => line.startsWith('http'))!);
    expect((await server.app.inject(segment)).statusCode).toBe(200);
    expect((await server.app.inject(segment.replace('seg000.ts', 'index.m3u8'))).statusCode).toBe(403);
    expect((await server.app.inject(segment.replace('seg000.ts', '..%2Findex.m3u8'))).statusCode).toBe(403);
    expect((await server.app.inject(segment.replace('seg000.ts', 'seg999.ts'))).statusCode).toBe(403);
    // A name of the other container is no way in: this stream (HIGH) has no init.mp4 or .m4s.
    expect((await server.app.inject(segment.replace('seg000.ts', 'init.mp4'))).statusCode).toBe(403);
    expect((await server.app.inject(segment.replace('seg000.ts', 'seg000.m4s'))).statusCode).toBe(403);
  });
});

describe.skipIf(!haveFfmpeg)('stream URLs expire (MAQAM_STREAM_URL_TTL=1)', () => {
  let server: TestServer;
  let dir: string;
  // The server's clock: moved past the lifetime rather than waited out.
  let now = Date.now();
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-media-'));
    server = await startTestServer(dialects[0]!, { MAQAM_MEDIA_DIR: join(dir, 'media'), MAQAM_STREAM_URL_TTL: '1' }, { clock: () => now });
    await addMedia(server.storage.db, join(dir, 'media'), 'song-ar', tone(dir));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an expired playlist URL with 403', async () => {
    const accounts = await seedAccounts(server);
    const { access_token } = await tokensFor(server, accounts.client.clientId, accounts.user.username);
    const res = await server.app.inject({
      method: 'POST', url: '/v1/streaming/music', headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
      payload: JSON.stringify({ songId: { value: 'song-ar' } }),
    });
    const manifest = new URL(res.json().stream.manifestUrl).pathname;
    expect((await server.app.inject(manifest)).statusCode).toBe(200);
    now += 1000;
    const expired = await server.app.inject(manifest);
    expect(expired.statusCode).toBe(403);
    expect(expired.json().code).toBe('ERROR_CODE_PERMISSION_DENIED');
  });
});

/** Edited, truncated, extended and re-spelled forms of a token: none may be accepted. */
function tokenVariants(token: string): string[] {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
  const bytes = Buffer.from(token, 'base64url');
  // The same bytes spelled with another last character (its unused low bits set), where the length leaves some.
  const respelled = [...alphabet].map((c) => token.slice(0, -1) + c).filter((t) => t !== token && Buffer.from(t, 'base64url').equals(bytes));
  return [flip(0), flip(token.length >> 1), flip(token.length - 1), token.slice(0, -1), `${token}=`, `${token}.x`, `${token}A`, ...respelled];
}
