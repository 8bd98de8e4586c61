import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * The dialects every HTTP suite runs against (house style: one suite, once per
 * dialect). SQLite always; PostgreSQL when MAQAM_TEST_POSTGRES (default
 * postgres://postgres@127.0.0.1:5432/test) answers. If it does not, that is
 * said loudly and only PostgreSQL is skipped; CI sets MAQAM_REQUIRE_POSTGRES=1
 * so a missing server fails instead.
 */
export interface TestDialect {
  readonly name: 'sqlite' | 'postgres';
  /** A fresh, empty database for one suite, and how to drop it. */
  create(): Promise<{ url: string; drop(): Promise<void> }>;
}

const POSTGRES_ADMIN_URL = process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

const sqlite: TestDialect = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'maqam-test-'));
    return { url: `sqlite:${join(dir, 'maqam.db')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

const postgres: TestDialect = {
  name: 'postgres',
  async create() {
    const name = `maqam_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await admin.connect();
    await admin.query(`create database ${name}`);
    await admin.end();
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
        await client.connect();
        await client.query(`drop database if exists ${name} with (force)`);
        await client.end();
      },
    };
  },
};

export const dialects: TestDialect[] = [sqlite];
if (await postgresReachable()) {
  dialects.push(postgres);
} else if (process.env.MAQAM_REQUIRE_POSTGRES === '1') {
  throw new Error(`MAQAM_REQUIRE_POSTGRES=1 but PostgreSQL at ${POSTGRES_ADMIN_URL} does not answer`);
} else {
  process.stderr.write(`\n*** PostgreSQL at ${POSTGRES_ADMIN_URL} is not reachable: SKIPPING the postgres dialect ***\n\n`);
}
