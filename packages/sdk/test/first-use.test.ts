import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConflictError, InvalidRequestError, MaqamClient, memoryTokens, type FetchLike } from '@maqam/sdk';
import { signInWithLoopback } from '@maqam/sdk/node';
import { freePort, type TestServer } from '../../server/test/harness.ts';
import { readForm } from '../../server/test/oauth/oauth-helpers.ts';
import { runCliJson } from '../../cli/test/run-cli.ts';
import { listeningServer, PASSWORD } from './signed-in.ts';

const README = readFileSync(resolve(import.meta.dirname, '../README.md'), 'utf8');

/** A fetch that keeps the headers of every request it sends, by path, around the global fetch. */
function recordingFetch() {
  const sent: { path: string; headers: Headers }[] = [];
  const fetchFn: FetchLike = (input, init) => {
    sent.push({ path: new URL(input).pathname, headers: new Headers(init?.headers) });
    return fetch(input, init);
  };
  return { fetchFn, sent };
}

/**
 * Regressions (issue 51, item 7): what a developer new to the SDK tripped
 * on. `ifMatch` refused the quoted form '"7"' that the ETag header and
 * docs/api.md use; errors came in Arabic to an app that set no locale (the
 * SDK sent no Accept-Language, so the server answered in its default); and
 * an InvalidRequestError's `message` was the server's "see violations",
 * naming no field.
 */
describe('the SDK on first use', () => {
  let running: Awaited<ReturnType<typeof listeningServer>>;
  let server: TestServer;

  beforeAll(async () => {
    running = await listeningServer('nadia');
    ({ server } = running);
  });
  afterAll(async () => server?.close());
  afterEach(() => vi.unstubAllGlobals());

  it('takes ifMatch as the ETag carries it ("7"), as the version (7) and as a number, and refuses other shapes before sending', async () => {
    let etag: string | null = null;
    const maqam = await running.signedIn('read write', async (input, init) => {
      const response = await fetch(input, init);
      if ((init?.method ?? 'GET') === 'GET') etag = response.headers.get('etag') ?? etag;
      return response;
    });
    const { id: { value: id } } = await maqam.playlists.create({ name: 'versions', songs: ['song-ar'] });
    await maqam.playlists.get(id);
    expect(etag).toBe('"1"');
    expect((await maqam.playlists.update(id, { name: 'two' }, { ifMatch: etag! })).version).toBe('2');
    expect((await maqam.playlists.update(id, { name: 'three' }, { ifMatch: '2' })).version).toBe('3');
    expect((await maqam.playlists.update(id, { name: 'four' }, { ifMatch: 3 })).version).toBe('4');
    expect((await maqam.playlists.replace(id, ['song-en'], { ifMatch: '"4"' })).version).toBe('5');
    // A quoted version that is stale is refused by the server, as the bare one is.
    const stale = await maqam.playlists.update(id, { name: 'stale' }, { ifMatch: '"4"' }).catch((error: unknown) => error);
    expect(stale).toBeInstanceOf(ConflictError);
    expect(stale).toMatchObject({ status: 412, currentVersion: '5' });
    // A weak ETag never matches (If-Match compares strongly); half-quoted and other shapes are mistakes.
    for (const ifMatch of ['W/"5"', '"5', '5"', 'v5', '', '*', -1, 5.5]) {
      await expect(maqam.playlists.update(id, { name: 'x' }, { ifMatch })).rejects.toThrow(TypeError);
    }
    expect((await maqam.playlists.read(id)).playlist.version).toBe('5');
  });

  it('asks for the runtime\'s language when the app set no locale, so errors come in it; a locale set, or none (\'\'), is kept', async () => {
    const { fetchFn, sent } = recordingFetch();
    vi.stubGlobal('navigator', { language: 'en-GB' });
    const english = new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey, fetch: fetchFn });
    const refused = await english.artists.listRelated('artist-ar', { pageSize: 5000 }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect((refused as InvalidRequestError).message).toBe('page_size must be at most 100.');
    expect(sent.at(-1)!.headers.get('accept-language')).toBe('en-GB');
    // A call's own locale wins.
    await english.artists.listRelated('artist-ar', { pageSize: 1, locale: 'ar' });
    expect(sent.at(-1)!.headers.get('accept-language')).toBe('ar');

    vi.stubGlobal('navigator', { language: 'ar-EG' });
    const arabic = await new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey }).artists.listRelated('artist-ar', { pageSize: 5000 }).catch((error: unknown) => error);
    expect((arabic as Error).message).toMatch(/[\u0600-\u06FF]/);

    // Without navigator (Node 20, Bun): Intl's default locale, without its Unicode extensions.
    vi.stubGlobal('navigator', undefined);
    const intl = new Intl.DateTimeFormat().resolvedOptions().locale.split(/-[0-9a-z]-/i)[0];
    await new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey, fetch: fetchFn }).artists.listRelated('artist-ar', { pageSize: 1 });
    expect(sent.at(-1)!.headers.get('accept-language')).toBe(intl);

    await new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey, fetch: fetchFn, locale: 'fr;q=0.9, ar' }).artists.listRelated('artist-ar', { pageSize: 1 });
    expect(sent.at(-1)!.headers.get('accept-language')).toBe('fr;q=0.9, ar');
    await new MaqamClient({ baseUrl: running.baseUrl, apiKey: server.apiKey, fetch: fetchFn, locale: '' }).artists.listRelated('artist-ar', { pageSize: 1 });
    expect(sent.at(-1)!.headers.get('accept-language')).toBeNull();
  });

  it('sends the runtime\'s language on sign-in\'s own calls too', async () => {
    vi.stubGlobal('navigator', { language: 'en-US' });
    const { fetchFn, sent } = recordingFetch();
    const maqam = await running.signedIn('read', fetchFn);
    await maqam.auth.tokenInfo();
    const token = sent.find((request) => request.path === '/v1/auth/token');
    expect(token?.headers.get('accept-language')).toBe('en-US');
    expect(sent.at(-1)!.headers.get('accept-language')).toBe('en-US');
  });

  it('registers a client for its own loopback port as the README says, and a loopback sign-in as the README asks can save', async () => {
    // The README's command, its line continuations joined, run on the server's database with a port free here.
    const command = /^npx maqam (clients create (?:[^\n\\]|\\\n)*)$/m.exec(README)?.[1]?.replace(/\\\n\s*/g, '');
    expect(command).toBeDefined();
    const readmeUri = /--redirect-uri (\S+)/.exec(command!)![1]!;
    const redirectUri = readmeUri.replace(/:\d+\//, `:${await freePort()}/`);
    const args = command!.replace(readmeUri, redirectUri).match(/"[^"]*"|\S+/g)!.map((arg) => arg.replace(/^"|"$/g, '')).filter((arg) => arg !== '--json');
    const client = await runCliJson({ DATABASE_URL: server.databaseUrl, LOG_LEVEL: 'silent' }, args);
    expect(client).toMatchObject({ redirectUris: [redirectUri], scopes: ['read', 'stream', 'write'] });

    // The README's loopback sign-in, with the scope it asks for.
    const scope = /signInWithLoopback\(maqam, \{\s*scope: '([^']+)'/.exec(README)?.[1];
    expect(scope).toBe('read stream write');
    const maqam = new MaqamClient({ baseUrl: running.baseUrl, auth: { clientId: client.clientId, redirectUri, storage: memoryTokens() } });
    await signInWithLoopback(maqam, {
      scope: scope!,
      open: async (url) => {
        const page = await fetch(url);
        const { hidden, cookie } = readForm(await page.text(), page.headers.get('set-cookie') ?? undefined);
        const consent = await fetch(page.url.split('?')[0]!, {
          method: 'POST', redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
          body: new URLSearchParams({ ...hidden, username: 'nadia', password: PASSWORD, decision: 'allow' }),
        });
        void fetch(consent.headers.get('location')!);
      },
    });
    const saved = await maqam.library.save({ songs: ['song-ar'] });
    expect(saved.songs.get('song-ar')).toMatchObject({ savedAt: expect.any(String) });
  });

  it('names the refused fields in an InvalidRequestError\'s message, and keeps the server\'s', async () => {
    const maqam = await running.signedIn('read write');
    const refused = await maqam.playlists.create({ name: 'mix', songs: ['song-ar', 'no-such-song'] }, { locale: 'en' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(InvalidRequestError);
    const error = refused as InvalidRequestError;
    expect(error.message).toBe('songIdList[1].value names no song in the catalog (unknown or withdrawn).');
    expect(error.serverMessage).toBe('The request is not valid; see violations.');
    expect(error.violations).toEqual([{ field: 'songIdList[1].value', description: error.message }]);

    // Three violations spelled out, the rest counted; a description that does not name its field is prefixed with it.
    const many = new InvalidRequestError('The request is not valid; see violations.', {
      code: 'ERROR_CODE_INVALID_REQUEST',
      status: 400,
      violations: [
        { field: 'songIdList[3].value', description: 'must be a string.' },
        ...[4, 5, 6, 7].map((i) => ({ field: `songIdList[${i}].value`, description: `songIdList[${i}].value is required.` })),
      ],
    });
    expect(many.message).toBe('songIdList[3].value: must be a string. songIdList[4].value is required. songIdList[5].value is required. (+2)');
    expect(many.serverMessage).toBe('The request is not valid; see violations.');
    expect(new InvalidRequestError('refused', { code: 'ERROR_CODE_INVALID_REQUEST', status: 400 }).message).toBe('refused');
  });
});
