#!/usr/bin/env -S node --max-semi-space-size=4
// --max-semi-space-size=4: a server's garbage is short-lived (request bodies,
// rendered JSON); a small young generation keeps the server's resident memory
// about 90 MB lower than Node's default, with no measured loss of throughput
// (bench/batch-get).
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
