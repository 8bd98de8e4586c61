// How much memory a user's export costs the server, whatever their history's length (issue 57). Not a test: a
// measurement, run by hand (`npx node packages/server/test/library/export-memory.ts [plays...]`, Linux only).
//
// For each size it makes a SQLite database with the fixture catalog, a user and that many plays, starts
// `maqam serve` (bin/maqam.js: the V8 flags servers run with) in a process of its own, warms it with one
// small export, resets the process's peak RSS (/proc/PID/clear_refs), downloads the export to nowhere, and
// prints the peak RSS (VmHWM) over the RSS before the download. At 1425763 on the shared 2-core machine (under the
// CPU lock), plays with a context, 2026-11-28:
//   10,000 plays:   1.9 MB in 0.16 s; RSS 165 MB before, peak growth  1.7 MB
//   100,000 plays: 19.2 MB in 1.16 s; RSS 183 MB before, peak growth  8.3 MB
//   300,000 plays: 57.8 MB in 2.97 s; RSS 193 MB before, peak growth 12.1 MB
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'kysely';
import { createClientsService, createUsersService, importNdjsonFile, openStorage, prepareDatabase } from '@maqam/server';
import { createTokensService } from '../../src/oauth/tokens.service.ts';
import { fixtureRecords, writeNdjson } from '../fixtures.ts';
import { freePort } from '../harness.ts';

const BIN = resolve(import.meta.dirname, '../../../cli/bin/maqam.js');
const REDIRECT = 'https://app.example/callback';
const sizes = process.argv.slice(2).map(Number);

async function prepare(dir: string, plays: number): Promise<{ url: string; token: string }> {
  const url = `sqlite:${join(dir, 'maqam.db')}`;
  const storage = openStorage(url);
  try {
    await prepareDatabase(storage);
    await importNdjsonFile(storage, writeNdjson(dir, 'catalog.ndjson', fixtureRecords()));
    const user = await createUsersService(storage.db).create('listener', 'a long enough password');
    const client = await createClientsService(storage.db).create({ name: 'Measure', redirectUris: [REDIRECT], scopes: ['read'] });
    const tokens = createTokensService(storage.db, { accessTokenTtlSeconds: 3600, codeTtlSeconds: 60 });
    const verifier = 'v'.repeat(43);
    const code = await tokens.issueCode({ clientId: client.clientId, userId: user.id, scope: 'read', redirectUri: REDIRECT, codeChallenge: createHash('sha256').update(verifier).digest('base64url') });
    const { access_token: accessToken } = await tokens.exchangeCode({ code: code!, clientId: client.clientId, redirectUri: REDIRECT, codeVerifier: verifier });
    await sql`with recursive n(i) as (select 0 union all select i + 1 from n where i < ${plays - 1})
      insert into play_history (user_id, play_id, song_id, started_at, ms_played, counted, context)
      select ${user.id}, 'p-' || i, 'song-ar', ${Date.now() - plays * 1000} + i * 1000, 200000, 1, '{"albumId":{"value":"album-1"}}' from n`.execute(storage.db);
    return { url, token: accessToken };
  } finally {
    await storage.close();
  }
}

/** Downloads the export, discarding it; answers its bytes. */
function download(port: number, token: string): Promise<number> {
  return new Promise((done, fail) => {
    request({ port, host: '127.0.0.1', path: '/v1/users/me/export', headers: { authorization: `Bearer ${token}` } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () => done(bytes));
      res.on('error', fail);
    }).on('error', fail).end();
  });
}

const kilobytes = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

for (const plays of sizes.length > 0 ? sizes : [10_000, 100_000, 300_000]) {
  const dir = mkdtempSync(join(tmpdir(), 'maqam-export-memory-'));
  const { url, token } = await prepare(dir, plays);
  const port = await freePort();
  const server = spawn(BIN, ['serve'], { env: { ...process.env, DATABASE_URL: url, PORT: String(port), MAQAM_SECRET: 'x'.repeat(40), LOG_LEVEL: 'warn' }, stdio: 'inherit' });
  try {
    for (let up = false; !up; await sleep(100)) up = await fetch(`http://127.0.0.1:${port}/healthz`).then((res) => res.ok, () => false);
    await download(port, token);
    const before = kilobytes(server.pid!, 'VmRSS');
    writeFileSync(`/proc/${server.pid}/clear_refs`, '5');
    const started = performance.now();
    const bytes = await download(port, token);
    const seconds = (performance.now() - started) / 1000;
    const peak = kilobytes(server.pid!, 'VmHWM');
    console.log(`${plays.toLocaleString('en')} plays: ${(bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(2)} s; server RSS ${(before / 1024).toFixed(0)} MB before, peak ${(peak / 1024).toFixed(0)} MB, growth ${((peak - before) / 1024).toFixed(1)} MB`);
  } finally {
    server.kill('SIGTERM');
    await new Promise((done) => server.once('exit', done));
    rmSync(dir, { recursive: true, force: true });
  }
}
