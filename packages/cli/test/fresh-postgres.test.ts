import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { dialects } from '../../server/test/dialects.ts';
import { freePort } from '../../server/test/harness.ts';
import { REDIS_URL, redisUp } from '../../server/test/redis.ts';
import { BIN, runCli, spawnCli } from './run-cli.ts';

const postgres = dialects.find((dialect) => dialect.name === 'postgres');

/** `maqam serve` in a process of its own until it is ready, then stopped: what it printed on stderr, and its exit code. */
async function serveUntilReady(env: Record<string, string>): Promise<{ stderr: string; code: number | null }> {
  const port = await freePort();
  const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], { env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
  try {
    await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
  } finally {
    child.kill('SIGTERM');
  }
  return { stderr, code: await exited };
}

/**
 * Regression (issue 51, item 7): a new user's first `maqam migrate` and
 * `maqam serve` on a fresh PostgreSQL database with REDIS_URL warned
 * `could not change the shared write version in Redis: relation "settings"
 * does not exist`: each migration's write told Redis, and telling it read
 * the deployment's id from a table the migrations had not made yet.
 */
describe.skipIf(postgres === undefined || !redisUp)('a fresh PostgreSQL database with REDIS_URL', () => {
  const databases: { url: string; drop(): Promise<void> }[] = [];
  const freshDatabase = async () => {
    const database = await postgres!.create();
    databases.push(database);
    return database.url;
  };
  afterAll(async () => {
    for (const database of databases) await database.drop();
  });

  it('maqam migrate migrates it without a warning, and tells the nodes once, after the migrations', async () => {
    const url = await freshDatabase();
    const result = await runCli({ DATABASE_URL: url, REDIS_URL, LOG_LEVEL: 'silent' }, ['migrate']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toContain('could not change the shared write version');
    expect(result.stderr).not.toContain('warning');
    // The shared write version, named after the deployment the migrations made, was set.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const deploymentId = (await client.query<{ value: string }>(`select value from settings where key = 'deployment_id'`)).rows[0]!.value;
    await client.end();
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.get(`maqam:write-epoch:${deploymentId}`)).toEqual(expect.any(String));
    } finally {
      redis.disconnect();
    }
  });

  it('maqam serve migrates it and starts without a warning', async () => {
    const url = await freshDatabase();
    const { stderr, code } = await serveUntilReady({ DATABASE_URL: url, REDIS_URL, LOG_LEVEL: 'silent' });
    expect(code).toBe(0);
    expect(stderr).not.toContain('could not change the shared write version');
    expect(stderr).not.toContain('Warning');
  }, 90_000);
});

/**
 * Regression (issue 51, item 7): a DATABASE_URL naming a PostgreSQL
 * database that does not exist read as an outage ("The service is
 * temporarily unavailable; retry later."); retrying never helps, creating
 * the database does.
 */
describe.skipIf(postgres === undefined)('a DATABASE_URL naming a PostgreSQL database that does not exist', () => {
  let missing: string;
  let name: string;
  beforeAll(async () => {
    const url = new URL(process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test');
    name = `maqam_missing_${randomBytes(4).toString('hex')}`;
    url.pathname = `/${name}`;
    missing = url.toString();
  });

  it('maqam migrate says the database does not exist and how to create it, and fails', async () => {
    const result = await runCli({ DATABASE_URL: missing, LOG_LEVEL: 'silent' }, ['migrate']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`database "${name}" does not exist`);
    expect(result.stderr).toContain(`createdb`);
    expect(result.stderr).toContain(`CREATE DATABASE ${name}`);
    expect(result.stderr).not.toMatch(/retry later|temporarily unavailable/i);
  });

  it('maqam serve says the same and exits non-zero', () => {
    const result = spawnCli({ DATABASE_URL: missing, LOG_LEVEL: 'silent' }, ['serve', '--port', '0']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`database "${name}" does not exist`);
    expect(result.stderr).toContain(`CREATE DATABASE ${name}`);
    expect(result.stderr).not.toMatch(/retry later|temporarily unavailable/i);
  });
});
