import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, loadConfig, openStorage, prepareDatabase, type Storage } from '@maqam/server';
import { dialects } from '../dialects.ts';

const DAY = 86_400_000;

/**
 * MAQAM_BACKUP_SCHEDULE (issue 57): a running server takes its backups
 * itself, keeps the last MAQAM_BACKUP_COUNT, and of several servers on one
 * database exactly one takes each; the schedule lives in the database, so a
 * server started later does not take another early. Time comes from the
 * clock the test moves, never from waiting.
 */
describe.each(dialects.map((d) => [d.name, d] as const))('scheduled backups on %s', (name, dialect) => {
  let database: Awaited<ReturnType<typeof dialect.create>>;
  let dir: string;
  let now = Date.parse('2026-11-28T13:45:00.000Z');
  const nodes: { app: FastifyInstance; storage: Storage }[] = [];
  const env = () => ({ MAQAM_BACKUP_SCHEDULE: '1d', MAQAM_BACKUP_COUNT: '2', MAQAM_BACKUP_DIR: join(dir, 'backups') });
  const startNode = async () => {
    const storage = openStorage(database.url);
    const app = await buildApp({ config: loadConfig({ DATABASE_URL: database.url, MAQAM_SECRET: 'x'.repeat(40), ...env() }), storage, logger: false, clock: () => now });
    nodes.push({ app, storage });
    return app;
  };
  const backups = () => {
    try {
      return readdirSync(join(dir, 'backups')).sort();
    } catch {
      return [];
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'maqam-schedule-'));
    database = await dialect.create();
    const storage = openStorage(database.url);
    await prepareDatabase(storage);
    await storage.close();
  }, 60_000);
  afterAll(async () => {
    for (const node of nodes) {
      await node.app.close();
      await node.storage.close();
    }
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it.runIf(name === 'sqlite')('takes each due backup on one of the servers, and keeps the newest MAQAM_BACKUP_COUNT', async () => {
    const [first, second] = [await startNode(), await startNode()];
    const both = async () => (await Promise.all([first.backups!.runDue(), second.backups!.runDue()])).filter((taken) => taken !== undefined);

    expect(await both()).toHaveLength(1);
    expect(backups()).toEqual(['maqam-2026-11-28T13-45-00Z.db']);
    expect(await both()).toHaveLength(0);
    now += DAY - 1;
    expect(await both()).toHaveLength(0);
    now += 1;
    expect(await both()).toHaveLength(1);
    // A server started now finds the schedule where the others left it.
    const third = await startNode();
    expect(await third.backups!.runDue()).toBeUndefined();
    now += DAY;
    expect((await Promise.all([first.backups!.runDue(), second.backups!.runDue(), third.backups!.runDue()])).filter(Boolean)).toHaveLength(1);
    expect(backups()).toEqual(['maqam-2026-11-29T13-45-00Z.db', 'maqam-2026-11-30T13-45-00Z.db']);
  });

  it.runIf(name === 'postgres')('takes none on PostgreSQL, whose own tools back it up', async () => {
    const app = await startNode();
    expect(app.backups).toBeUndefined();
    expect(backups()).toEqual([]);
  });
});
