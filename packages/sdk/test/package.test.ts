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
const work = mkdtempSync(join(tmpdir(), 'maqam-sdk-package-'));
const dist = join(work, 'dist');
const consumer = join(work, 'consumer');

function run(command: string, args: string[], cwd = consumer) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 120_000 });
  return { code: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Runs a program that calls the server this process hosts: asynchronously, so the server can answer. */
function runAgainstServer(command: string, file: string) {
  return new Promise<{ code: number; output: string }>((done) => {
    execFile(command, [file, baseUrl, server.apiKey], { cwd: consumer, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
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

const program = (importLine: string) => `${importLine}
const maqam = new MaqamClient({ baseUrl: process.argv[2], apiKey: process.argv[3], locale: 'en' });
maqam.songs.batchGet(['song-ar', 'nope']).then(async (results) => {
  const missing = await maqam.artists.listRelated('nobody').catch((error) => error);
  console.log(JSON.stringify({ title: results.get('song-ar').song.title.value, nope: results.get('nope').error.code, notFound: missing instanceof NotFoundError && missing instanceof MaqamError }));
});
`;
const expected = { title: 'Tamally Maak', nope: 'ERROR_CODE_NOT_FOUND', notFound: true };

describe('the built @maqam/sdk package', () => {
  it('works through import (ESM)', async () => {
    writeFileSync(join(consumer, 'esm.mjs'), program("import { MaqamClient, MaqamError, NotFoundError } from '@maqam/sdk';"));
    const result = await runAgainstServer(process.execPath, 'esm.mjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  it('works through require (CommonJS)', async () => {
    writeFileSync(join(consumer, 'cjs.cjs'), program("const { MaqamClient, MaqamError, NotFoundError } = require('@maqam/sdk');"));
    const result = await runAgainstServer(process.execPath, 'cjs.cjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  it.runIf(existsSync('/usr/bin/node') && /^v2[0-3]\./.test(run('/usr/bin/node', ['--version'], REPO).output))('works on the Node 20 of this machine', async () => {
    writeFileSync(join(consumer, 'node20.mjs'), program("import { MaqamClient, MaqamError, NotFoundError } from '@maqam/sdk';"));
    const result = await runAgainstServer('/usr/bin/node', 'node20.mjs');
    expect(result.code, result.output).toBe(0);
    expect(JSON.parse(result.output)).toEqual(expected);
  });

  it('carries self-contained types that a strict consumer compiles against, as ESM and as CommonJS', () => {
    const usage = `
import { MaqamClient, memoryTokens, RateLimitError, type Song, type SongResult, type AudioQuality } from '@maqam/sdk';
import { signInWithLoopback } from '@maqam/sdk/node';
const maqam = new MaqamClient({ baseUrl: 'http://127.0.0.1:1', auth: { clientId: 'c', redirectUri: 'http://127.0.0.1:8765/callback', storage: memoryTokens() } });
export async function titles(ids: string[]): Promise<string[]> {
  const results: Map<string, SongResult> = await maqam.songs.batchGet(ids, { locale: 'ar' });
  const songs: Song[] = [...results.values()].flatMap((r) => (r.song ? [r.song] : []));
  return songs.map((song) => song.title?.value ?? '');
}
export const quality: AudioQuality = 'AUDIO_QUALITY_HIGH';
export const wait = (e: unknown) => (e instanceof RateLimitError ? e.retryAfter : undefined);
export const signIn = () => signInWithLoopback(maqam, { open: (url: string) => console.log(url) });
// @ts-expect-error: the qualities are a closed set
export const wrong: AudioQuality = 'AUDIO_QUALITY_ULTRA';
`;
    for (const [module, file] of [['nodenext', 'usage.mts'], ['nodenext', 'usage.cts']] as const) {
      writeFileSync(join(consumer, file), usage);
      const tsconfig = { compilerOptions: { strict: true, module, moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom'], noEmit: true, skipLibCheck: false, types: ['node'] }, files: [file] };
      writeFileSync(join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig));
      const result = run(process.execPath, [join(REPO, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json']);
      expect(result.code, `${file}: ${result.output}`).toBe(0);
    }
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
