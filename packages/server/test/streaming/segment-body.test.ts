import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addMedia } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';
import { seedAccounts, tokensFor } from '../oauth/oauth-helpers.ts';
import { ffmpegAvailable } from '../system-tools.ts';

const haveFfmpeg = ffmpegAvailable('the segment body tests');
const sqlite = dialects.find((dialect) => dialect.name === 'sqlite')!;

/**
 * Segment bytes go through a few pooled buffers reused from response to response (streaming/segment-body.ts): a
 * buffer reused before the socket has written it shows as a wrong byte in some other response. So many segments
 * are fetched at once over real HTTP, whole and in ranges that start and end inside and across the 64 KiB reads,
 * and every byte is compared with the file; and every way a response can end leaves no file open.
 */
describe.skipIf(!haveFfmpeg)('segment bodies through pooled buffers', () => {
  let server: TestServer;
  let dir: string;
  let base: string;
  /** Each served file's URL and its bytes on disk. */
  const files: { url: string; bytes: Buffer }[] = [];

  /** Descriptors of this process open on a file of the media folder. */
  const openMediaFiles = () =>
    readdirSync('/proc/self/fd').filter((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).startsWith(join(dir, 'media'));
      } catch {
        return false;
      }
    }).length;
  async function noMediaFileOpen(): Promise<void> {
    for (let i = 0; i < 50 && openMediaFiles() > 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(openMediaFiles()).toBe(0);
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-segment-body-'));
    server = await startTestServer(sqlite, { MAQAM_MEDIA_DIR: join(dir, 'media') });
    const accounts = await seedAccounts(server);
    // Noise: FLAC cannot shrink it, so a 6 s lossless segment is about 1 MB, many 64 KiB reads, and no two alike.
    const noise = join(dir, 'noise.wav');
    const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'anoisesrc=duration=13:seed=54', '-ac', '2', '-ar', '44100', noise]);
    if (made.status !== 0) throw new Error(made.stderr.toString());
    await addMedia(server.storage.db, join(dir, 'media'), 'song-ar', noise);
    const token = (await tokensFor(server, accounts.client.clientId, accounts.user.username, 'read stream')).access_token;
    await server.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.app.server.address() as { port: number }).port}`;

    const acquired = await server.app.inject({
      method: 'POST', url: '/v1/streaming/music', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ songId: { value: 'song-ar' }, maxQuality: 'AUDIO_QUALITY_LOSSLESS' }),
    });
    const playlist = (await server.app.inject(new URL(acquired.json().stream.manifestUrl).pathname)).body;
    const urls = [...playlist.split('\n').filter((line) => line.startsWith('http')), /^#EXT-X-MAP:URI="([^"]+)"$/m.exec(playlist)![1]!];
    const onDisk = readdirSync(join(dir, 'media'), { recursive: true, withFileTypes: true });
    for (const url of urls) {
      const name = url.split('/').pop()!;
      const file = onDisk.find((entry) => entry.isFile() && entry.name === name)!;
      files.push({ url: base + new URL(url).pathname, bytes: readFileSync(join(file.parentPath, file.name)) });
    }
  }, 60_000);
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sends every byte of many segments fetched at once, whole and in ranges', async () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
    expect(Math.max(...files.map((file) => file.bytes.length))).toBeGreaterThan(512 * 1024);
    let seed = 54;
    const random = (below: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % below;
    };
    const fetchOne = async (i: number) => {
      const file = files[i % files.length]!;
      const size = file.bytes.length;
      let range: [number, number] | undefined;
      if (i % 3 === 1) {
        const start = random(size);
        range = [start, start + random(size - start)];
      } else if (i % 3 === 2) {
        // A range from and to a 64 KiB boundary's neighbourhood.
        const start = Math.min(size - 1, 65_536 * random(4) + random(3) - 1 + (random(2) === 0 ? 0 : 65_536));
        range = [Math.max(0, start), Math.min(size - 1, Math.max(0, start) + 65_536 * (1 + random(3)) + random(3) - 1)];
      }
      const answer = await fetch(file.url, range ? { headers: { range: `bytes=${range[0]}-${range[1]}` } } : {});
      const body = Buffer.from(await answer.arrayBuffer());
      const expected = range ? file.bytes.subarray(range[0], range[1] + 1) : file.bytes;
      expect(answer.status).toBe(range ? 206 : 200);
      expect(body.length).toBe(expected.length);
      // Not toEqual on a megabyte: the first differing byte, if any, says where.
      const first = body.findIndex((byte, at) => byte !== expected[at]);
      expect(first, `${file.url} ${range?.join('-') ?? 'whole'}`).toBe(-1);
    };
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 48 }, (_, i) => fetchOne(round * 48 + i)));
    }
    await noMediaFileOpen();
  }, 60_000);

  it('closes the file of a response whose client goes away mid-body, and serves the next ones whole', async () => {
    const largest = files.reduce((a, b) => (b.bytes.length > a.bytes.length ? b : a));
    const path = new URL(largest.url).pathname;
    const { port } = server.app.server.address() as { port: number };
    // Clients that ask for the segment and go away: before any answer, after the first bytes, after some reads.
    await Promise.all(Array.from({ length: 12 }, (_, i) => new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${path} HTTP/1.1\r\nhost: x\r\n\r\n`));
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > (i % 4) * 100_000) socket.destroy();
      });
      if (i % 4 === 0) setTimeout(() => socket.destroy(), 1);
      socket.on('close', () => resolve());
      socket.on('error', () => undefined);
    })));
    await noMediaFileOpen();
    const again = await Promise.all(Array.from({ length: 8 }, () => fetch(largest.url).then(async (answer) => Buffer.from(await answer.arrayBuffer()))));
    for (const body of again) expect(body.equals(largest.bytes)).toBe(true);
  }, 30_000);

  it('leaves no file open after HEAD, 304, 412 and 416', async () => {
    const { url, bytes } = files[0]!;
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));
    const etag = (await fetch(url, { headers: { range: 'bytes=0-0' } })).headers.get('etag')!;
    // fetch adds `cache-control: no-cache` to a conditional request unless it has one, and no-cache asks for the file.
    expect((await fetch(url, { headers: { 'if-none-match': etag, 'cache-control': 'max-age=0' } })).status).toBe(304);
    expect((await fetch(url, { headers: { 'if-match': '"another"' } })).status).toBe(412);
    expect((await fetch(url, { headers: { range: `bytes=${bytes.length}-` } })).status).toBe(416);
    await noMediaFileOpen();
  });
});
