#!/usr/bin/env -S node --max-semi-space-size=16
// --max-semi-space-size=16 caps V8's young generation. Measured with
// bench/batch-get on 1M songs (req/s Zipf / uniform, RSS under Zipf):
//   4 MB: 2,907 / 564, 228 MB;  16 MB: 3,101 / 852, 285 MB;  32 MB: 3,339 / 1,053, 317 MB.
// 16 MB is the fastest setting that keeps the server under 300 MB.
// The CLI is TypeScript run by Node's built-in type stripping, which needs Node 24.
// `npx maqam` and npm scripts put the repository's pinned Node 24 first on PATH.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    `maqam needs Node.js 24 or newer; this is ${process.version}.\n` +
      'Run it through npm (npx maqam ..., npm start) so the repository\'s pinned Node 24 is used.\n',
  );
  process.exit(1);
}
await import('../src/main.ts');
