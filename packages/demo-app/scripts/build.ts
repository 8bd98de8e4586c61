// Builds the demo web app into packages/demo-app/dist: index.html and
// assets/ (app.js, app.css, and hls.js as a chunk loaded only by browsers
// without native HLS). The server serves the folder at /demo.
// Run: npm run build:demo
import { build } from 'esbuild';
import { cp, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const out = join(root, 'dist');

await rm(out, { recursive: true, force: true });
await mkdir(join(out, 'assets'), { recursive: true });
await build({
  entryPoints: { app: join(root, 'src/main.ts') },
  outdir: join(out, 'assets'),
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  chunkNames: 'chunk-[hash]',
  logLevel: 'warning',
});
await cp(join(root, 'src/index.html'), join(out, 'index.html'));
await cp(join(root, 'src/app.css'), join(out, 'assets/app.css'));
console.log(`demo app built into ${out}`);
