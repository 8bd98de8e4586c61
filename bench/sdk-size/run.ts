// Size of the full @maqam/sdk client as a browser app ships it: every export
// of the package bundled by esbuild, minified, then gzipped (level 9).
// Target: under 6 KB gzipped. Run: npm run bench:sdk-size
import { build } from 'esbuild';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';

const TARGET_BYTES = 6 * 1024;
const entry = join(import.meta.dirname, '../../packages/sdk/src/index.ts');

async function bundle(minify: boolean, contents = `export * from ${JSON.stringify(entry)};`): Promise<Uint8Array> {
  const result = await build({
    stdin: { contents, resolveDir: import.meta.dirname, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify,
    write: false,
  });
  return result.outputFiles[0]!.contents;
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;
const readable = await bundle(false);
const minified = await bundle(true);
const gzipped = gzipSync(minified, { level: 9 }).length;
// Tree shaking: an app that only reads the catalog with an API key.
const catalogOnly = gzipSync(await bundle(true, `import { MaqamClient } from ${JSON.stringify(entry)}; export const maqam = new MaqamClient({ baseUrl: 'https://api.example', apiKey: 'k' });`), { level: 9 }).length;

console.log(`@maqam/sdk, full client (esbuild ${(await import('esbuild')).version}, es2022):`);
console.log(`  bundled           ${kb(readable.length)}`);
console.log(`  minified          ${kb(minified.length)}`);
console.log(`  minified+gzipped  ${kb(gzipped)}   target < ${kb(TARGET_BYTES)}: ${gzipped < TARGET_BYTES ? 'met' : 'NOT met'}`);
console.log(`  MaqamClient only, minified+gzipped ${kb(catalogOnly)}`);
process.exitCode = gzipped < TARGET_BYTES ? 0 : 1;
