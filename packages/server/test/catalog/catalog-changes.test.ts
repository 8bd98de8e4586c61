import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ImportRecord } from '@maqam/contract';
import { buildApp, importNdjsonFile, loadConfig, openStorage, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { REDIS_URL, redisUp } from '../redis.ts';
import { freePort, startTestServer, type TestServer } from '../harness.ts';

/**
 * A node hears of an import made by another process through the Redis they
 * share, and answers the new catalog at once, not at its next poll of the
 * catalog version (here an hour away).
 */
describe.skipIf(!redisUp).each(dialects.map((d) => [d.name, d] as const))('word of catalog changes through Redis on %s', (_name, dialect) => {
  let server: TestServer;
  let node: { app: FastifyInstance; storage: Storage };

  beforeAll(async () => {
    server = await startTestServer(dialect);
    const storage = openStorage(server.databaseUrl, { redisUrl: REDIS_URL });
    const config = loadConfig({ DATABASE_URL: server.databaseUrl, MAQAM_SECRET: 'x'.repeat(40), MAQAM_RATE_LIMIT: '0' });
    node = { app: await buildApp({ config, storage, logger: false, catalogPollMs: 3_600_000 }), storage };
  });
  afterAll(async () => {
    await node?.app.close();
    await node?.storage.close();
    await server?.close();
  });

  const title = async () => {
    const res = await node.app.inject({ method: 'GET', url: '/v1/music/songs/song-en', headers: { 'x-api-key': server.apiKey, 'accept-language': 'en' } });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().song.title.value as string;
  };

  it('answers a song renamed by an import in another process without waiting for its poll', async () => {
    const before = await title();
    expect(await title()).toBe(before); // answered from the node's cache now
    const song = fixtureRecords().find((record) => record.kind === 'song' && record.id === 'song-en')!;
    const renamed = { ...song, title: { en: 'Renamed while cached' } } as ImportRecord;
    // The importing process: its own connection and its own Redis client, as `maqam import` has.
    const importer = openStorage(server.databaseUrl, { redisUrl: REDIS_URL });
    const dir = mkdtempSync(join(tmpdir(), 'maqam-changes-'));
    try {
      // The node's subscription is made when it starts listening; the first import may come before it is ready.
      await vi.waitFor(async () => {
        expect((await importNdjsonFile(importer, writeNdjson(dir, 'rename.ndjson', [renamed]))).errors).toEqual([]);
        expect(await title()).toBe('Renamed while cached');
      }, { timeout: 10_000, interval: 200 });
    } finally {
      await importer.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does not hear another deployment\'s changes on the same Redis', async () => {
    const other = await startTestServer(dialect);
    const otherStorage = openStorage(other.databaseUrl, { redisUrl: REDIS_URL });
    const heard: number[] = [];
    const stop = node.storage.catalogChanges.listen(() => heard.push(1));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'maqam-changes-'));
      const song = fixtureRecords().find((record) => record.kind === 'song' && record.id === 'song-en')!;
      await importNdjsonFile(otherStorage, writeNdjson(dir, 'other.ndjson', [{ ...song, title: { en: 'Elsewhere' } } as ImportRecord]));
      rmSync(dir, { recursive: true, force: true });
      // This deployment's own word arrives (the channel works), the other's never did.
      await node.storage.catalogChanges.announce();
      await vi.waitFor(() => expect(heard.length).toBeGreaterThan(0), { timeout: 5000 });
      expect(heard.length).toBe(1);
    } finally {
      stop();
      await otherStorage.close();
      await other.close();
    }
  });
});

/** A node started while Redis was away still hears changes once Redis is up (its subscription waits for it). */
describe.skipIf(!redisUp)('word of catalog changes when Redis comes up after the node', () => {
  it('subscribes once Redis answers, and hears the next change', async () => {
    const port = await freePort();
    const server = await startTestServer(dialects[0]!);
    const node = openStorage(server.databaseUrl, { redisUrl: `redis://127.0.0.1:${port}` });
    const heard: number[] = [];
    const stop = node.catalogChanges.listen(() => heard.push(1));
    // A Redis of its own on that port, started after the node listens.
    const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    try {
      await vi.waitFor(async () => {
        await node.catalogChanges.announce();
        expect(heard.length).toBeGreaterThan(0);
      }, { timeout: 15_000, interval: 200 });
    } finally {
      stop();
      redis.kill();
      await node.close();
      await server.close();
    }
  });
});
