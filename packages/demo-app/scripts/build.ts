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
// app.css with the files it imports (video.css), in one file.
await build({ entryPoints: [join(root, 'src/app.css')], outfile: join(out, 'assets/app.css'), bundle: true, minify: true, target: ['chrome120', 'firefox121', 'safari17'], logLevel: 'warning' });
console.log(`demo app built into ${out}`);
