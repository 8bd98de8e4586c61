// What the benches that fill a user's data through the API share: a seeded
// database of either dialect, users with access tokens made straight in it,
// calls as a user, and requests eight at a time.
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClientsService, openStorage, prepareDatabase } from '@maqam/server';
import { createTokensService } from '../../packages/server/src/oauth/tokens.service.ts';
import { freshPostgresDatabase } from './postgres.ts';

const REDIRECT = 'http://127.0.0.1:9/callback';

/**
 * A fresh database of `dialect` (`name` in PostgreSQL, `<name>-<songs>.db`
 * under `dataDir` for SQLite) with the demo catalog of `songs` songs seeded
 * by `maqam seed-demo`; undefined when PostgreSQL does not answer.
 */
export async function seededDatabase(dialect: string, name: string, songs: number, dataDir: string, bin: string, env: NodeJS.ProcessEnv = process.env): Promise<string | undefined> {
  let url: string;
  if (dialect === 'postgres') {
    const made = await freshPostgresDatabase(`maqam_bench_${name}`);
    if (made === undefined) return undefined;
    url = made;
  } else {
    const file = join(dataDir, `${name}-${songs}.db`);
    for (const suffix of ['', '-wal', '-shm']) rmSync(file + suffix, { force: true });
    url = `sqlite:${file}`;
  }
  const seeded = spawnSync(process.execPath, [bin, 'seed-demo', '--songs', String(songs), '--json'], { env: { ...env, DATABASE_URL: url, LOG_LEVEL: 'warn' }, encoding: 'utf8' });
  if (seeded.status !== 0) throw new Error(seeded.stderr);
  console.log(`\n${dialect}: ${songs.toLocaleString('en')} songs seeded in ${JSON.parse(seeded.stdout).seconds} s`);
  return url;
}

/**
 * Users made in this process, straight in the database, each with an access
 * token for a client allowed `read write` (a sign-in through the page hashes
 * a password: a thousand of them would take minutes and measure nothing of
 * what a bench is for). Tokens live 6 hours.
 */
export async function userTokens(url: string): Promise<{ newUser(name: string): Promise<string>; close(): Promise<void> }> {
  const storage = openStorage(url);
  await prepareDatabase(storage);
  const client = await createClientsService(storage.db).create({ name: 'bench', redirectUris: [REDIRECT], scopes: ['read', 'write'] });
  const tokens = createTokensService(storage.db, { accessTokenTtlSeconds: 6 * 3600, codeTtlSeconds: 600 });
  const now = Date.now();
  return {
    async newUser(name) {
      const id = randomUUID();
      await storage.db.insertInto('users').values({ id, username: name, username_key: name, password_hash: 'none', created_at: now, disabled_at: null }).execute();
      const verifier = randomBytes(32).toString('base64url');
      const code = (await tokens.issueCode({ clientId: client.clientId, userId: id, scope: 'read write', redirectUri: REDIRECT, codeChallenge: createHash('sha256').update(verifier).digest('base64url') }))!;
      return (await tokens.exchangeCode({ code, clientId: client.clientId, redirectUri: REDIRECT, codeVerifier: verifier })).access_token;
    },
    close: () => storage.close(),
  };
}

/** A call to the API at `base` as the holder of `token`; anything but a 2xx throws. */
export function callerOf(base: string) {
  return async (token: string, method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await fetch(base + path, {
      method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
}

/** `count` requests made by `make`, eight at a time; answers how long they took, in seconds. */
export async function eightAtOnce(count: number, make: (i: number) => Promise<unknown>): Promise<number> {
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (next < count) await make(next++);
  }));
  return (performance.now() - started) / 1000;
}
