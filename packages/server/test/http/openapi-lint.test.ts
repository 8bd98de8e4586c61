import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { dialects } from '../dialects.ts';
import { startTestServer, type TestServer } from '../harness.ts';

const require = createRequire(import.meta.url);
/** A package's command-line entry, run under this Node (the linters refuse the system's). */
const bin = (pkg: string, file: string) => join(dirname(require.resolve(`${pkg}/package.json`)), file);
const run = (args: string[], cwd: string) => spawnSync(process.execPath, args, { cwd, encoding: 'utf8', timeout: 120_000 });

/**
 * The published document as generators and linters read it: both common
 * linters with their recommended rules find nothing, and openapi-typescript
 * turns the contract's schemas into named types.
 */
describe('the OpenAPI document', () => {
  let server: TestServer;
  let dir: string;
  let file: string;
  beforeAll(async () => {
    server = await startTestServer(dialects[0]!);
    dir = mkdtempSync(join(tmpdir(), 'maqam-openapi-'));
    file = join(dir, 'openapi.json');
    writeFileSync(file, (await server.app.inject('/v1/openapi.json')).body);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes Redocly\'s recommended rules with no error and no warning', () => {
    const result = run([bin('@redocly/cli', 'bin/cli.js'), 'lint', file, '--format=json', '--extends=recommended'], dir);
    const report = JSON.parse(result.stdout) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  }, 120_000);

  it('passes Spectral\'s spectral:oas rules with no error and no warning', () => {
    writeFileSync(join(dir, '.spectral.yaml'), 'extends: ["spectral:oas"]\n');
    const result = run([bin('@stoplight/spectral-cli', 'dist/index.js'), 'lint', file, '--ruleset', join(dir, '.spectral.yaml'), '--format', 'json', '--quiet'], dir);
    const problems = JSON.parse(result.stdout || '[]') as { code: string; message: string; path: string[] }[];
    expect(problems.map((p) => `${p.code} at ${p.path.join('.')}: ${p.message}`)).toEqual([]);
  }, 120_000);

  it('gives generators named types for the contract\'s schemas', () => {
    const out = join(dir, 'api.d.ts');
    const result = run([bin('openapi-typescript', 'bin/cli.js'), file, '-o', out], dir);
    expect(result.status, result.stderr).toBe(0);
    const types = readFileSync(out, 'utf8');
    for (const name of ['Song', 'Artist', 'Album', 'LocalizedString', 'Image', 'Error', 'ValidationError', 'FieldViolation', 'SearchResult', 'TokenResponse', 'OAuthError']) {
      expect(types, name).toMatch(new RegExp(`^ {8}${name}: \\{`, 'm'));
    }
    // Operations refer to them by name rather than repeating their shape.
    expect(types).toContain('components["schemas"]["Song"]');
  }, 120_000);

  it('declares Accept-Language, the response headers and what each answer means', async () => {
    const doc = (await server.app.inject('/v1/openapi.json')).json();
    const getSong = doc.paths['/v1/music/songs/{song_id}'].get;
    expect(getSong.parameters).toContainEqual({ $ref: '#/components/parameters/AcceptLanguage' });
    expect(doc.components.parameters.AcceptLanguage).toMatchObject({ name: 'Accept-Language', in: 'header' });
    expect(getSong.responses['200'].description).toBe('One song.');
    expect(Object.keys(getSong.responses['200'].headers)).toEqual(['x-request-id', 'Content-Language', 'x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']);
    expect(getSong.responses['5XX'].headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
    expect(getSong.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/GetSongResponse' });
    expect(doc.components.schemas.GetSongResponse.properties.song).toEqual({ $ref: '#/components/schemas/Song' });
    // Seed section 2: no field of Song is marked required; the SDK's types learn from x-sent-in-full that every one is sent.
    expect(doc.components.schemas.Song.required).toBeUndefined();
    expect(doc.components.schemas.Song['x-sent-in-full']).toBe(true);
    expect(doc.components.schemas.SongArtistRef.required).toBeUndefined();
    expect(doc.info).toMatchObject({ license: { name: 'MIT', identifier: 'MIT' }, contact: { name: 'Maqam' } });
    expect(JSON.stringify(doc)).not.toContain('Default Response');
  });
});
