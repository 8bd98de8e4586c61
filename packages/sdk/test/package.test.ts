// The package app developers install: built with the real build script,
// then used the ways they use it (import, require, Node 20, a strict tsc)
// against the real server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import ts from 'typescript';
import { dialects } from '../../server/test/dialects.ts';
import { freePort, startTestServer, type TestServer } from '../../server/test/harness.ts';

const REPO = resolve(import.meta.dirname, '../../..');
const DENO = join(REPO, 'node_modules/@deno/linux-x64-glibc/deno');
if (!existsSync(DENO)) process.stderr.write(`\n*** No Deno at ${DENO} (an optional dependency for linux-x64): SKIPPING the Deno run of the SDK ***\n\n`);
const work = mkdtempSync(join(tmpdir(), 'maqam-sdk-package-'));
const dist = join(work, 'dist');
const consumer = join(work, 'consumer');

function run(command: string, args: string[], cwd = consumer) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Runs a program that calls the server this process hosts: asynchronously, so the server can answer. */
function runAgainstServer(command: string, file: string, runtimeArgs: string[] = []) {
  return new Promise<{ code: number; output: string }>((done) => {
    execFile(command, [...runtimeArgs, file, baseUrl, server.apiKey], { cwd: consumer, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) || 1 : 0, output: `${stdout}${stderr}` });
    });
  });
}

let server: TestServer;
let baseUrl: string;

beforeAll(async () => {
  const built = run(process.execPath, [join(REPO, 'packages/sdk/scripts/build.ts'), dist], REPO);
  expect(built.code, built.output).toBe(0);
  // A project of an app developer: the built package and Node's types, nothing of the monorepo.
  mkdirSync(join(consumer, 'node_modules/@maqam'), { recursive: true });
  mkdirSync(join(consumer, 'node_modules/@types'), { recursive: true });
  symlinkSync(dist, join(consumer, 'node_modules/@maqam/sdk'));
  symlinkSync(join(REPO, 'node_modules/@types/node'), join(consumer, 'node_modules/@types/node'));
  symlinkSync(join(REPO, 'node_modules/undici-types'), join(consumer, 'node_modules/undici-types'));

  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  server = await startTestServer(dialects[0]!, { MAQAM_PUBLIC_URL: baseUrl });
  await server.app.listen({ port, host: '127.0.0.1' });
});
afterAll(async () => {
  await server?.close();
  rmSync(work, { recursive: true, force: true });
});

// The same program for every runtime: the catalog with an API key, a typed error, and a PKCE start (Web Crypto).
const program = (importLine: string) => `${importLine}
const [baseUrl, apiKey] = typeof Deno === 'undefined' ? process.argv.slice(2) : Deno.args;
const maqam = new MaqamClient({ baseUrl, apiKey, locale: 'en' });
const results = await maqam.songs.batchGet(['song-ar', 'nope']);
const missing = await maqam.artists.listRelated('nobody').catch((error) => error);
const user = new MaqamClient({ baseUrl, auth: { clientId: 'c', redirectUri: 'http://127.0.0.1:1/cb', storage: memoryTokens() } });
const start = new URL(await user.auth.createAuthorizationUrl());
console.log(JSON.stringify({
  title: results.get('song-ar').song.title.value,
  nope: results.get('nope').error.code,
  notFound: missing instanceof NotFoundError && missing instanceof MaqamError,
  pkce: /^[A-Za-z0-9_-]{43}$/.test(start.searchParams.get('code_challenge')),
}));
`;
const expected = { title: 'Tamally Maak', nope: 'ERROR_CODE_NOT_FOUND', notFound: true, pkce: true };
const ESM_IMPORT = "import { MaqamClient, MaqamError, NotFoundError, memoryTokens } from '@maqam/sdk';";

describe('the built @maqam/sdk package', () => {
  it('works through import (ESM)', async () => {
    writeFileSync(join(consumer, 'esm.mjs'), program(ESM_IMPORT));
    const result = await runAgainstServer(process.execPath, 'esm.mjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  it('works through require (CommonJS)', async () => {
    // CommonJS has no top-level await: the same program inside an async function.
    const body = program("const { MaqamClient, MaqamError, NotFoundError, memoryTokens } = require('@maqam/sdk');").split('\n');
    writeFileSync(join(consumer, 'cjs.cjs'), `${body[0]}\n(async () => {\n${body.slice(1).join('\n')}\n})();\n`);
    const result = await runAgainstServer(process.execPath, 'cjs.cjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  it.runIf(existsSync('/usr/bin/node') && /^v2[0-3]\./.test(run('/usr/bin/node', ['--version'], REPO).output))('works on the Node 20 of this machine', async () => {
    writeFileSync(join(consumer, 'node20.mjs'), program(ESM_IMPORT));
    const result = await runAgainstServer('/usr/bin/node', 'node20.mjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  // Bun comes from the npm registry (a devDependency), so it is on every machine that ran npm ci.
  it('works on Bun', async () => {
    writeFileSync(join(consumer, 'bun.mjs'), program(ESM_IMPORT));
    const result = await runAgainstServer(join(REPO, 'node_modules/.bin/bun'), 'bun.mjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  // Deno's npm build exists for linux-x64 in our registry only: an optional dependency, there on CI's machines.
  it.runIf(existsSync(DENO))('works on Deno, with network access only', async () => {
    // Deno imports the ES module files by path (or from a CDN); it does not resolve bare names from node_modules by default.
    writeFileSync(join(consumer, 'deno.mjs'), program(ESM_IMPORT.replace("'@maqam/sdk'", "'./node_modules/@maqam/sdk/esm/index.js'")));
    const result = await runAgainstServer(DENO, 'deno.mjs', ['run', '--quiet', '--no-config', '--allow-net=127.0.0.1', '--allow-read=.']);
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  it('carries self-contained types that a strict consumer compiles against, as ESM and as CommonJS', () => {
    const usage = `
import { MaqamClient, MaqamError, memoryTokens, RateLimitError, type Song, type SongResult, type AudioQuality } from '@maqam/sdk';
import { signInWithLoopback } from '@maqam/sdk/node';
const maqam = new MaqamClient({ baseUrl: 'http://127.0.0.1:1', auth: { clientId: 'c', redirectUri: 'http://127.0.0.1:8765/callback', storage: memoryTokens() } });
export async function titles(ids: string[]): Promise<string[]> {
  const results: Map<string, SongResult> = await maqam.songs.batchGet(ids, { locale: 'ar' });
  const songs: Song[] = [...results.values()].flatMap((r) => (r.song ? [r.song] : []));
  return songs.map((song) => song.title.value);
}
// Every field of a song is there: no optional chaining down to a name.
export const firstArtist = (song: Song): string => song.artists[0]?.name.value ?? '';
export const credits = (song: Song): string => song.artists.map((artist) => artist.name.value).join(', ') + song.durationMs;
// Lists answer { items, nextPageToken }, the top tracks too; the bare array of earlier releases still compiles.
export const top = async (): Promise<Song[]> => (await maqam.artists.listTopTracks('artist-1')).items;
export const topOld = async (): Promise<Song[]> => maqam.artists.topTracks('artist-1');
export const related = async (): Promise<string[]> => (await maqam.artists.listRelated('artist-1')).items.map((artist) => artist.name.value);
export const quality: AudioQuality = 'AUDIO_QUALITY_HIGH';
export const wait = (e: unknown) => (e instanceof RateLimitError ? e.retryAfter : undefined);
export const signIn = () => signInWithLoopback(maqam, { open: (url: string) => console.log(url) });
// @ts-expect-error: the qualities are a closed set
export const wrong: AudioQuality = 'AUDIO_QUALITY_ULTRA';
// Values that may be undefined go straight in, under exactOptionalPropertyTypes too.
const key: string | undefined = process.env.MAQAM_API_KEY;
const token: string | undefined = undefined;
export const server = new MaqamClient({ baseUrl: 'http://127.0.0.1:1', apiKey: key, locale: undefined });
export const page = () => server.artists.listRelated('artist-1', { pageSize: 10, pageToken: token, signal: undefined });
export const found = () => server.search('x', { types: undefined, pageToken: token });
// error.code is the union of the API's codes.
export const retryable = (e: unknown) => {
  if (!(e instanceof MaqamError)) return false;
  const code: 'ERROR_CODE_UNAVAILABLE' | 'ERROR_CODE_RATE_LIMITED' | 'ERROR_CODE_INTERNAL' | 'ERROR_CODE_UNSPECIFIED' | 'ERROR_CODE_INVALID_REQUEST'
    | 'ERROR_CODE_UNAUTHENTICATED' | 'ERROR_CODE_PERMISSION_DENIED' | 'ERROR_CODE_NOT_FOUND' | 'ERROR_CODE_CONFLICT' = e.code;
  // @ts-expect-error: not a code the API answers
  const never: typeof code = 'ERROR_CODE_TEAPOT';
  return code === 'ERROR_CODE_UNAVAILABLE' || never === code;
};
`;
    // One program of both: under nodenext a .mts file is an ES module and a .cts one CommonJS, each resolving the package's own conditions.
    const files = ['usage.mts', 'usage.cts'];
    for (const file of files) writeFileSync(join(consumer, file), usage);
    const tsconfig = { compilerOptions: { strict: true, exactOptionalPropertyTypes: true, noUncheckedIndexedAccess: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], noEmit: true, skipLibCheck: false, types: ['node'] }, files };
    writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig));
    const result = run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
    expect(result.code, result.output).toBe(0);
  });

  it('has no runtime dependencies, no TypeBox or contract in its types, and no Node built-in outside @maqam/sdk/node', () => {
    const manifest = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8'));
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(manifest.sideEffects).toBe(false);
    for (const format of ['esm', 'cjs']) {
      const files = readdirSync(join(dist, format), { recursive: true, encoding: 'utf8' });
      for (const file of files.filter((f) => f.endsWith('.d.ts'))) {
        expect(readFileSync(join(dist, format, file), 'utf8'), file).not.toMatch(/typebox|@maqam\/contract/);
      }
      expect(readFileSync(join(dist, format, 'index.js'), 'utf8')).not.toMatch(/node:|require\(["']/);
    }
  });

  it('documents every export with TSDoc and an @example', () => {
    const entries = ['index.d.ts', 'node.d.ts'].map((file) => join(dist, 'esm', file));
    const program = ts.createProgram(entries, { module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: ['node'], typeRoots: [join(REPO, 'node_modules/@types')] });
    const checker = program.getTypeChecker();
    const undocumented: string[] = [];
    let exported = 0;
    for (const entry of entries) {
      const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
      for (const symbol of checker.getExportsOfModule(module)) {
        exported++;
        const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
        const documented = ts.displayPartsToString(target.getDocumentationComment(checker)).trim() !== '';
        const example = target.getJsDocTags(checker).some((tag) => tag.name === 'example');
        if (!documented || !example) undocumented.push(symbol.name);
      }
    }
    expect(exported).toBeGreaterThan(25);
    expect(undocumented).toEqual([]);
  });
});
