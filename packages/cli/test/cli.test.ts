import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { generateDemoCatalog } from '@maqam/server';
import { fixtureRecords, writeNdjson } from '../../server/test/fixtures.ts';
import { freePort } from '../../server/test/harness.ts';
import { BIN, dumpTable, runCli, runCliJson, spawnCli } from './run-cli.ts';

let dir: string;
let env: Record<string, string>;

const maqam = (args: string[], extraEnv: Record<string, string> = {}, input?: string) => runCli({ ...env, ...extraEnv }, args, input);
const json = (args: string[], extraEnv: Record<string, string> = {}) => runCliJson({ ...env, ...extraEnv }, args);

function count(database: string, table: string): number {
  const db = new DatabaseSync(database);
  try {
    return Number((db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n);
  } finally {
    db.close();
  }
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'maqam-cli-'));
  env = { DATABASE_URL: `sqlite:${join(dir, 'cli.db')}`, LOG_LEVEL: 'silent' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The process itself (bin/maqam.js and main.ts): exit codes, its own standard streams. The other suites run commands in process. */
describe('maqam as a process', () => {
  it('exits 0 with the record on stdout, 2 on bad usage, 1 on a failure, and reads --password-stdin from its stdin', () => {
    const own = { ...env, DATABASE_URL: `sqlite:${join(dir, 'process.db')}` };
    const created = spawnCli(own, ['users', 'create', '--username', 'piped', '--password-stdin', '--json'], 'a piped passphrase\n');
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({ username: 'piped' });
    expect(created.stderr).toContain('database: SQLite');
    const usage = spawnCli(own, ['frobnicate']);
    expect([usage.code, usage.stdout, usage.stderr]).toEqual([2, '', 'maqam: unknown command "frobnicate"; see maqam help\n']);
    const failed = spawnCli(own, ['keys', 'revoke', 'nosuchkey0000']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^database: .*\nmaqam: .*nosuchkey0000/s);
  });
});

describe('maqam migrate', () => {
  it('applies migrations once', async () => {
    expect(await json(['migrate'])).toEqual({ applied: ['001-catalog-and-keys', '002-users-and-clients', '003-oauth-grants', '004-streaming', '005-single-use-sign-in', '006-whole-catalog', '007-search-index', '008-operator-accounts', '009-search-word-bounds', '010-search-walk-byte-order', '011-song-templates', '012-search-segments', '013-song-templates-rowid', '014-deployment-id', '015-library', '016-playlists', '017-typed-play-contexts', '018-playlist-text-order-keys', '019-video', '020-video-streams', '021-developer-keys', '022-video-title-templates'], rebuilt: [] });
    expect(await json(['migrate'])).toEqual({ applied: [], rebuilt: [] });
  });
});

describe('maqam import', () => {
  it('shows a progress bar with its rate and time left on a terminal, and none in a pipe', async () => {
    const file = writeNdjson(dir, 'progress.ndjson', [...generateDemoCatalog({ songs: 4000, video: false })]);
    const database = `sqlite:${join(dir, 'progress.db')}`;
    // util-linux's script gives the command a pseudo-terminal, as an operator's shell would.
    const command = [process.execPath, BIN, 'import', file, '--batch-size', '200'].map((arg) => `'${arg}'`).join(' ');
    const terminal = spawnSync('script', ['-qec', command, '/dev/null'], { env: { ...process.env, ...env, DATABASE_URL: database }, encoding: 'utf8', timeout: 120_000 });
    expect(terminal.status, terminal.stdout).toBe(0);
    const bars = terminal.stdout.split('\r').filter((frame) => frame.startsWith('['));
    expect(bars.length).toBeGreaterThan(5);
    expect(bars.some((bar) => / \d[\d,]* lines · [\d,]+ lines\/s · \d+(m \d\ds|s) left/.test(bar)), bars.slice(-3).join('\n')).toBe(true);
    expect(bars.at(-1)).toMatch(/^\[#{30}\] 100%/);
    const piped = await maqam(['import', file, '--batch-size', '200'], { DATABASE_URL: `sqlite:${join(dir, 'progress-piped.db')}` });
    expect(piped.stderr).not.toContain('lines/s');
  });


  it('imports the NDJSON format and prints counts', async () => {
    const file = writeNdjson(dir, 'fixture.ndjson', fixtureRecords());
    expect(await json(['import', file])).toEqual({ artists: 29, albums: 1, songs: 4, related: 25, lyrics: 1, shows: 0, seasons: 0, episodes: 0, movies: 0 });
  });

  it('is idempotent: a second run upserts, it does not duplicate', async () => {
    const file = writeNdjson(dir, 'fixture.ndjson', fixtureRecords());
    const database = join(dir, 'cli.db');
    const before = ['artists', 'albums', 'songs', 'related_artists'].map((t) => count(database, t));
    expect(await json(['import', file])).toEqual({ artists: 29, albums: 1, songs: 4, related: 25, lyrics: 1, shows: 0, seasons: 0, episodes: 0, movies: 0 });
    expect(['artists', 'albums', 'songs', 'related_artists'].map((t) => count(database, t))).toEqual(before);
  });

  it('reports bad lines with their numbers and writes nothing of their batch', async () => {
    const database = join(dir, 'bad.db');
    const good = { kind: 'artist', id: 'good-1', name: { en: 'Good' }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' };
    const file = writeNdjson(dir, 'bad.ndjson', [
      good,
      '{"kind":"artist", broken json',
      { ...good, id: 'good-2', followerCount: -5 },
      { kind: 'mystery' },
      { kind: 'song', id: 's', title: { en: 'x' }, originalLanguage: 'en', artistIds: ['nobody'], albumId: 'nowhere', durationMs: 1, trackNumber: 1, discNumber: 1, releaseDate: '2020-01-01', genres: [], isExplicit: false, isrc: '', hasLyrics: false, popularity: 1, artwork: [], previewUrl: '' },
    ]);
    const result = await maqam(['import', file, '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/bad\.ndjson:2: not valid JSON/);
    expect(result.stderr).toMatch(/bad\.ndjson:3: artist followerCount/);
    expect(result.stderr).toMatch(/bad\.ndjson:4: "kind" must be one of/);
    const record = JSON.parse(result.stdout);
    // The unknown references of line 5 in the same pass as the other lines' problems, not in a second round.
    expect(result.stderr).toMatch(/bad\.ndjson:5: references unknown artist "nobody"/);
    expect(result.stderr).toMatch(/bad\.ndjson:5: references unknown album "nowhere"/);
    expect(record).toMatchObject({ artists: 0, albums: 0, songs: 0, related: 0, lyrics: 0, badLineCount: 4 });
    expect(record.badLines.map((bad: { line: number }) => bad.line)).toEqual([2, 3, 4, 5, 5]);
    expect(count(database, 'artists')).toBe(0);
  });

  // bin/maqam.js's shebang caps the young generation for the server; a load runs again in a child Node without it.
  it('answers the same when started as the shebang starts it: counts, bad lines and exit code pass through the child', async () => {
    const capped = (args: string[], database: string) => spawnSync(process.execPath, ['--max-semi-space-size=8', BIN, ...args], {
      env: { ...process.env, ...env, DATABASE_URL: `sqlite:${join(dir, database)}` }, encoding: 'utf8', timeout: 120_000,
    });
    const good = capped(['import', writeNdjson(dir, 'capped.ndjson', fixtureRecords()), '--json'], 'capped.db');
    expect(good.status, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ artists: 29, albums: 1, songs: 4, related: 25, lyrics: 1, shows: 0, seasons: 0, episodes: 0, movies: 0 });
    const bad = capped(['import', writeNdjson(dir, 'capped-bad.ndjson', ['{"kind":"mystery"}']), '--json'], 'capped-bad.db');
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/capped-bad\.ndjson:1: "kind" must be one of/);
    expect(JSON.parse(bad.stdout)).toMatchObject({ badLineCount: 1 });
  });

  it('prints the first 20 problems and counts the rest; --json lists at most 100', async () => {
    const database = join(dir, 'many-bad.db');
    const file = writeNdjson(dir, 'many-bad.ndjson', Array.from({ length: 150 }, () => '{"kind":"mystery"}'));
    const result = await maqam(['import', file, '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code).toBe(1);
    expect(result.stderr.match(/many-bad\.ndjson:\d+:/g)).toHaveLength(20);
    expect(result.stderr).toContain('... and 130 more problem(s)');
    const record = JSON.parse(result.stdout);
    expect(record.badLineCount).toBe(150);
    expect(record.badLines).toHaveLength(100);
  });

  // Regression (issue 8, item 15): records repeated across batches were counted once per batch.
  it('counts distinct records, however often and in however many batches a file repeats them', async () => {
    const database = join(dir, 'repeats.db');
    const artist = (id: string) => ({ kind: 'artist', id, name: { en: id }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' });
    const edges = [
      { kind: 'related', artistId: 'r-1', relatedId: 'r-2', score: 0.5 },
      { kind: 'related', artistId: 'r-2', relatedId: 'r-1', score: 0.4 },
    ];
    const file = writeNdjson(dir, 'repeats.ndjson', [artist('r-1'), artist('r-2'), ...Array.from({ length: 10 }, () => [...edges, artist('r-1')]).flat()]);
    const result = await maqam(['import', file, '--batch-size', '3', '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ artists: 2, albums: 0, songs: 0, related: 2, lyrics: 0, shows: 0, seasons: 0, episodes: 0, movies: 0 });
    expect(count(database, 'related_artists')).toBe(2);
  });

  it('refuses an id repeated in one batch, naming the line it first appeared on, and lets two kinds share an id', async () => {
    const database = join(dir, 'repeated-ids.db');
    const artist = (id: string) => ({ kind: 'artist', id, name: { en: id }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' });
    const album = { kind: 'album', id: 'shared', title: { en: 'Shared' }, originalLanguage: 'en', artistIds: ['shared'], releaseDate: '2001-01-01', artwork: [] };
    const bad = await maqam(['import', writeNdjson(dir, 'repeated-ids.ndjson', [artist('shared'), album, artist('twice'), artist('twice')])], { DATABASE_URL: `sqlite:${database}` });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('repeated-ids.ndjson:4: artist "twice" already appears on line 3 of this batch');
    expect(bad.stderr).not.toContain('repeated-ids.ndjson:2:');
    expect(count(database, 'artists')).toBe(0);
    const good = await maqam(['import', writeNdjson(dir, 'shared-id.ndjson', [artist('shared'), album]), '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(good.code, good.stderr).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ artists: 1, albums: 1, songs: 0, related: 0, lyrics: 0, shows: 0, seasons: 0, episodes: 0, movies: 0 });
  });

  it('refuses NUL in any text of a record, the same on every database', async () => {
    const database = join(dir, 'nul.db');
    const file = writeNdjson(dir, 'nul.ndjson', [
      { kind: 'artist', id: 'n-1', name: { en: 'a\u0000b' }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' },
    ]);
    const result = await maqam(['import', file], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nul.ndjson:1:');
    expect(count(database, 'artists')).toBe(0);
  });

  it('reports unknown references with line numbers and rolls the batch back', async () => {
    const database = join(dir, 'refs.db');
    const artist = { kind: 'artist', id: 'a-1', name: { en: 'A' }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' };
    const file = writeNdjson(dir, 'refs.ndjson', [artist, { kind: 'related', artistId: 'a-1', relatedId: 'ghost', score: 0.5 }]);
    const result = await maqam(['import', file], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refs.ndjson:2: references unknown artist "ghost"');
    expect(count(database, 'artists')).toBe(0);
  });

  it('accepts references to what earlier batches wrote, and refuses those to what a refused batch held', async () => {
    const database = join(dir, 'refs-across.db');
    const artist = (id: string) => ({ kind: 'artist', id, name: { en: id }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' });
    const related = (artistId: string, relatedId: string) => ({ kind: 'related', artistId, relatedId, score: 0.5 });
    const file = writeNdjson(dir, 'refs-across.ndjson', [
      artist('x-1'), artist('x-2'), // written
      related('x-1', 'x-2'), related('x-1', 'ghost'), // refused: ghost
      artist('x-3'), '{oops', // refused: the bad line, so x-3 is not written
      related('x-2', 'x-3'), artist('x-4'), // refused: x-3
      related('x-2', 'x-1'), // written
    ]);
    const result = await maqam(['import', file, '--batch-size', '2', '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('refs-across.ndjson:4: references unknown artist "ghost"');
    expect(result.stderr).toContain('refs-across.ndjson:6:');
    expect(result.stderr).toContain('refs-across.ndjson:7: references unknown artist "x-3"');
    expect(JSON.parse(result.stdout)).toMatchObject({ artists: 2, related: 1 });
    expect(count(database, 'artists')).toBe(2);
    expect(count(database, 'related_artists')).toBe(1);
  });

  it('writes the good batches of a file and skips only the bad one', async () => {
    const database = join(dir, 'batches.db');
    const artist = (id: string) => ({ kind: 'artist', id, name: { en: id }, originalLanguage: 'en', genres: [], followerCount: 1, monthlyListeners: 1, isVerified: false, socialLinks: [], artwork: [], nationality: 'GB' });
    const file = writeNdjson(dir, 'batches.ndjson', [artist('b-1'), artist('b-2'), artist('b-3'), '{oops', artist('b-5'), artist('b-6')]);
    const result = await maqam(['import', file, '--batch-size', '2', '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('batches.ndjson:4:');
    expect(JSON.parse(result.stdout).artists).toBe(4);
    expect(count(database, 'artists')).toBe(4);
  });
});

describe('maqam keys', () => {
  it('creates, lists, rotates and revokes keys with --json', async () => {
    const created = await json(['keys', 'create', '--name', 'mobile', '--expires-in', '90d']);
    expect(created).toEqual({ id: expect.stringMatching(/^[a-z0-9]{12}$/), name: 'mobile', key: expect.stringMatching(/^mk_[a-z0-9]{12}_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}$/) });
    expect(created.key.startsWith(`mk_${created.id}_`)).toBe(true);

    const listed = await json(['keys', 'list']);
    const entry = listed.find((k: { id: string }) => k.id === created.id);
    expect(entry).toMatchObject({ name: 'mobile', status: 'active', revokedAt: null });
    expect(Date.parse(entry.expiresAt) - Date.now()).toBeGreaterThan(89 * 86400_000);
    expect(JSON.stringify(listed)).not.toContain(created.key.split('_').slice(2).join('_'));

    const rotated = await json(['keys', 'rotate', created.id, '--grace', '1h']);
    expect(rotated).toMatchObject({ name: 'mobile', replaces: created.id, graceSeconds: 3600 });
    expect(rotated.id).not.toBe(created.id);

    expect(await json(['keys', 'revoke', rotated.id])).toEqual({ id: rotated.id, revoked: true });
    expect((await json(['keys', 'list'])).find((k: { id: string }) => k.id === rotated.id).status).toBe('revoked');
  });

  it('fails clearly on unknown ids and bad usage', async () => {
    const unknown = await maqam(['keys', 'revoke', 'zzzzzzzzzzzz']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no API key with id "zzzzzzzzzzzz"');
    expect((await maqam(['keys', 'create'])).code).toBe(2);
    expect((await maqam(['keys', 'create', '--name', 'x', '--expires-in', 'soon'])).stderr).toContain('--expires-in takes a duration');
    const bare = await maqam(['keys', 'create', '--name', 'x', '--expires-in', '90']);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('--expires-in takes a duration with its unit, like 90d');
    expect((await maqam(['frobnicate'])).code).toBe(2);
    expect((await maqam(['migrate', '--bogus'])).code).toBe(2);
  });

  it('stores no key secret in the database', async () => {
    const { key } = await json(['keys', 'create', '--name', 'secret-check']);
    expect(dumpTable(join(dir, 'cli.db'), 'api_keys')).not.toContain(key.split('_').slice(2).join('_'));
  });
});

describe('maqam seed-demo', () => {
  it('writes a deterministic Arabic-first catalog', async () => {
    const one = join(dir, 'seed-1.db');
    const two = join(dir, 'seed-2.db');
    const summary = await json(['seed-demo', '--songs', '2000', '--seed', '7'], { DATABASE_URL: `sqlite:${one}` });
    expect(summary).toMatchObject({ artists: 80, albums: 200, songs: 2000 });
    await json(['seed-demo', '--songs', '2000', '--seed', '7'], { DATABASE_URL: `sqlite:${two}` });
    const titles = (path: string) => {
      const db = new DatabaseSync(path);
      const rows = db.prepare("select id, title_i18n, original_language from songs order by id limit 200").all();
      db.close();
      return rows as { title_i18n: string; original_language: string }[];
    };
    const first = titles(one);
    expect(titles(two)).toEqual(first);
    const arabic = first.filter((r) => r.original_language === 'ar');
    expect(arabic.length / first.length).toBeGreaterThan(0.6);
    for (const row of arabic) {
      const texts = JSON.parse(row.title_i18n);
      expect(texts.ar).toMatch(/[\u0600-\u06FF]/);
      expect(texts.en).toMatch(/^[A-Za-z' ]+$/); // the Latin transliteration
    }
    expect(first.some((r) => r.original_language === 'en' || r.original_language === 'fr')).toBe(true);
  });
});

describe('maqam serve', () => {
  it('serves the API and shuts down gracefully on SIGTERM', async () => {
    const port = await freePort();
    const database = join(dir, 'serve.db');
    const seeded = await maqam(['seed-demo', '--songs', '500', '--json'], { DATABASE_URL: `sqlite:${database}` });
    expect(seeded.code).toBe(0);
    const key = JSON.parse((await maqam(['keys', 'create', '--name', 'serve', '--json'], { DATABASE_URL: `sqlite:${database}` })).stdout).key;
    const child = spawn(process.execPath, [BIN, 'serve', '--port', String(port)], {
      env: { ...process.env, DATABASE_URL: `sqlite:${database}`, LOG_LEVEL: 'silent' },
      stdio: 'ignore',
    });
    try {
      await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status, { timeout: 15_000 }).toBe(200);
      const res = await fetch(`http://127.0.0.1:${port}/v1/music/songs:batchGet`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({ songIdList: [{ value: 'song-1' }] }),
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { results: Record<string, { song?: unknown }> }).results['song-1']!.song).toBeDefined();
    } finally {
      const exited = new Promise<number | null>((resolveExit) => child.on('exit', (code) => resolveExit(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  });

  it('keeps the demo client signing in on whatever port or public URL the demo is served at', async () => {
    const database = join(dir, 'demo-ports.db');
    const env = { DATABASE_URL: `sqlite:${database}`, MAQAM_MEDIA_DIR: join(dir, 'demo-media'), LOG_LEVEL: 'silent', MAQAM_DEMO_MUSIC: '0' };
    expect((await maqam(['seed-demo', '--songs', '200', '--json'], env)).code).toBe(0);
    const serveOn = async (port: number) => {
      const child = spawn(process.execPath, [BIN, 'serve', '--demo', '--port', String(port)], { env: { ...process.env, ...env }, stdio: 'ignore' });
      await expect.poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status, { timeout: 60_000 }).toBe(200);
      const exited = new Promise((resolveExit) => child.on('exit', resolveExit));
      child.kill('SIGTERM');
      await exited;
    };
    const [first, second] = [await freePort(), await freePort()];
    await serveOn(first);
    await serveOn(second);
    const uris = JSON.parse((JSON.parse(dumpTable(database, 'oauth_clients')) as { id: string; redirect_uris: string }[]).find((c) => c.id === 'maqam-demo')!.redirect_uris);
    expect(uris).toEqual(expect.arrayContaining([`http://127.0.0.1:${first}/demo/callback`, `http://127.0.0.1:${second}/demo/callback`]));
  }, 120_000);

  it('refuses a bad configuration with a clear message', async () => {
    const result = await maqam(['migrate'], { DATABASE_URL: 'mysql://nope' });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('DATABASE_URL must start with sqlite: or postgres://');
  });
});


describe('every command that writes', () => {
  it('says on standard error which database it writes to, without a password', async () => {
    const created = await runCli(env, ['keys', 'create', '--name', 'which-db', '--json']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr).toContain(`database: SQLite ${join(dir, 'cli.db')}`);
    JSON.parse(created.stdout); // stdout stays the record alone
    const postgres = await runCli({ ...env, MAQAM_DB_TIMEOUT_MS: '500' }, ['migrate', '--database-url', 'postgres://owner:s3cret@127.0.0.1:1/catalog']);
    expect(postgres.code).not.toBe(0);
    expect(postgres.stderr).toContain('database: PostgreSQL owner@127.0.0.1:1/catalog');
    expect(postgres.stderr).not.toContain('s3cret');
  });
});

describe('maqam help', () => {
  it('prints its version', async () => {
    const result = await maqam(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toMatch(/^maqam \d+\.\d+\.\d+$/);
  });

  it.each(['serve', 'migrate', 'seed-demo', 'import', 'keys', 'users', 'clients', 'media'])('explains %s with --help and with maqam help', async (command) => {
    const flag = await maqam([command, '--help']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toContain(`maqam ${command}`);
    expect(flag.stdout).not.toContain('Commands:');
    expect((await maqam(['help', command])).stdout).toBe(flag.stdout);
  });
});
