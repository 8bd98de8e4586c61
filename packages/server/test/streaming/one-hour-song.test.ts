import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImportRecord } from '@maqam/contract';
import { addMedia, importNdjsonFile } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';
import { ffmpegAvailable } from '../system-tools.ts';

/**
 * Regression (issue 51, item 5): every segment URL carried the playlist's
 * 300 s expiry, so a one-hour song stopped after five minutes. Contract
 * section 7: the manifest URL must be first fetched within
 * MAQAM_STREAM_URL_TTL; every URL it leads to is signed until acquisition +
 * the song's duration + MAQAM_STREAM_GRACE, a window fixed at acquisition.
 */

const haveFfmpeg = ffmpegAvailable('the one-hour song streaming tests');

const SECOND = 1000;
const TTL = 300 * SECOND;
const HOUR = 3_600_000;
const GRACE = 14_400 * SECOND;

/** A 13-second stereo tone: three 6 s HLS segments. The catalog says the song lasts an hour; the clock makes it so. */
function tone(dir: string): string {
  const file = join(dir, 'tone.wav');
  const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=13', '-ac', '2', file]);
  if (made.status !== 0) throw new Error(made.stderr.toString());
  return file;
}

describe.skipIf(!haveFfmpeg).each(dialects.map((d) => [d.name, d] as const))('a one-hour song plays to its end on %s', (_name, dialect) => {
  let server: TestServer;
  let dir: string;
  // The server's clock: moved through the hour rather than waited out.
  let now = Date.now();

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-hour-'));
    server = await startTestServer(dialect, { MAQAM_MEDIA_DIR: join(dir, 'media') }, { clock: () => now });
    const songAr = fixtureRecords().find((record) => record.kind === 'song' && record.id === 'song-ar')!;
    const imported = await importNdjsonFile(server.storage, writeNdjson(dir, 'hour.ndjson', [{ ...songAr, id: 'song-hour', durationMs: HOUR } as ImportRecord]));
    expect(imported.errors).toEqual([]);
    await addMedia(server.storage.db, join(dir, 'media'), 'song-hour', tone(dir));
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new listener, signed in at the clock's present (an access token lives an hour; the tests move past it). */
  const signIn = async () => {
    const accounts = await seedAccounts(server);
    return (await tokensFor(server, accounts.client.clientId, accounts.user.username, 'read stream')).access_token;
  };
  const acquire = (accessToken: string) =>
    server.app.inject({
      method: 'POST', url: '/v1/streaming/music',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${accessToken}` },
      payload: JSON.stringify({ songId: { value: 'song-hour' }, maxQuality: 'AUDIO_QUALITY_STANDARD' }),
    });
  const get = (url: string) => server.app.inject(new URL(url, 'http://x').pathname);
  const ledgerRows = async () =>
    Number((await server.storage.db.selectFrom('stream_ledger').select((eb) => eb.fn.countAll().as('n')).where('song_id', '=', 'song-hour').executeTakeFirstOrThrow()).n);
  /** The absolute URLs a playlist leads to: segments and the fMP4 initialization segment. */
  const ledTo = (playlist: string) => [...playlist.matchAll(/^(http\S+)$|URI="(http[^"]+)"/gm)].map((match) => match[1] ?? match[2]!);

  it('streams every segment past 300 s and past 3,000 s after acquisition; the manifest itself keeps its TTL', async () => {
    const acquiredAt = now;
    const answer = await acquire(await signIn());
    expect(answer.statusCode).toBe(200);
    expect(answer.json().stream.expiresInSeconds).toBe(300);
    const manifest: string = answer.json().stream.manifestUrl;

    now = acquiredAt + 60 * SECOND; // fetched within its TTL
    const playlist = await get(manifest);
    expect(playlist.statusCode).toBe(200);
    expect(playlist.headers['cache-control']).toBe('private, max-age=240');
    const segments = ledTo(playlist.body);
    expect(segments.length).toBeGreaterThanOrEqual(3);

    now = acquiredAt + TTL + SECOND;
    expect((await get(manifest)).statusCode).toBe(403); // the manifest's first fetch is due within the TTL
    const first = await get(segments[0]!);
    expect(first.statusCode).toBe(200);
    expect(first.rawPayload[0]).toBe(0x47); // MPEG-TS
    // Cacheable as long as it stays valid: until acquisition + duration + grace.
    expect(first.headers['cache-control']).toBe(`private, max-age=${(HOUR + GRACE - TTL - SECOND) / SECOND}`);

    now = acquiredAt + 3_001 * SECOND;
    expect((await get(segments[1]!)).statusCode).toBe(200);
    // Seeking back is no new acquisition either, with Range as ever.
    const part = await server.app.inject({ url: new URL(segments[0]!).pathname, headers: { range: 'bytes=0-187' } });
    expect(part.statusCode).toBe(206);

    now = acquiredAt + HOUR;
    for (const segment of segments) expect((await get(segment)).statusCode, segment).toBe(200); // to its last segment

    now = acquiredAt + HOUR + GRACE - SECOND; // paused for most of the grace
    expect((await get(segments.at(-1)!)).statusCode).toBe(200);
  });

  it('refuses a segment URL from acquisition + duration + grace on, however late the manifest was fetched', async () => {
    const acquiredAt = now;
    const manifest: string = (await acquire(await signIn())).json().stream.manifestUrl;
    const early = ledTo((await get(manifest)).body);
    // Fetching the manifest again, just before its TTL ends, does not move the window.
    now = acquiredAt + TTL - SECOND;
    const late = ledTo((await get(manifest)).body);

    now = acquiredAt + HOUR + GRACE - SECOND;
    expect((await get(early.at(-1)!)).statusCode).toBe(200);
    expect((await get(late.at(-1)!)).statusCode).toBe(200);

    now = acquiredAt + HOUR + GRACE;
    for (const segment of [...early, ...late]) {
      const expired = await get(segment);
      expect(expired.statusCode, segment).toBe(403);
      expect(expired.json().code).toBe('ERROR_CODE_PERMISSION_DENIED');
    }
  });

  it('refuses a tampered segment URL, and a segment token as the way to the manifest after its TTL', async () => {
    const acquiredAt = now;
    const manifest: string = (await acquire(await signIn())).json().stream.manifestUrl;
    const segment = ledTo((await get(manifest)).body)[0]!;
    const path = new URL(segment).pathname;
    const token = path.split('/')[4]!;
    expect(path).toBe(`/v1/streaming/hls/${token}/seg000.ts`);

    now = acquiredAt + TTL + SECOND;
    expect((await get(segment)).statusCode).toBe(200);
    for (const variant of tamperedForms(token)) expect((await server.app.inject(path.replace(token, variant))).statusCode, variant).toBe(403);
    // The segments' longer lifetime opens segments only: the playlist is the manifest's, and its TTL has passed.
    expect((await server.app.inject(path.replace('seg000.ts', 'index.m3u8'))).statusCode).toBe(403);
  });

  it('bills again once the manifest URL has expired, though the earlier listening window is still open', async () => {
    // Decision: "while an earlier URL is still valid" is the acquired manifest URL (expiresInSeconds), as before;
    // the longer window only keeps a stream already started playing.
    const accessToken = await signIn();
    const acquiredAt = now;
    const before = await ledgerRows();
    expect((await acquire(accessToken)).statusCode).toBe(200);
    expect(await ledgerRows()).toBe(before + 1);
    now = acquiredAt + TTL - SECOND;
    expect((await acquire(accessToken)).statusCode).toBe(200);
    expect(await ledgerRows()).toBe(before + 1);
    now = acquiredAt + TTL;
    expect((await acquire(accessToken)).statusCode).toBe(200);
    expect(await ledgerRows()).toBe(before + 2);
  });
});

/** Edited, truncated and extended forms of a token. */
function tamperedForms(token: string): string[] {
  const flip = (at: number) => token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1);
  return [flip(0), flip(token.length >> 1), flip(token.length - 1), token.slice(0, -1), `${token}A`, `${token}=`];
}
