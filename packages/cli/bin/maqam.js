#!/usr/bin/env -S node --max-semi-space-size=8 --initial-old-space-size=64 --no-allocation-site-pretenuring --no-maglev
// --max-semi-space-size=8 caps V8's young generation (the server's RSS under load). Measured with
// bench/batch-get/memory.ts on 1M songs, fresh Zipf stream, 30 s runs alternating (2026-11-25):
//   8 MB: 425 to 460 us a request, p99 28.7 to 31.1 ms, RSS 370 to 373 MB;
//   16 MB: 421 to 515 us, p99 28.6 to 39.1 ms, RSS 385 to 391 MB;
//   24 and 32 MB: 463 to 548 us, p99 58 to 71 ms (a dozen full collections a run), RSS 397 to 400 MB.
// Uniform ids: 1,068 us at 8 MB against 1,105 at 16. Flags in NODE_OPTIONS do not override these.
// --initial-old-space-size=64 lets the old generation grow to 64 MB before V8 collects it. With V8's own
// limit, a search server of about 31 MB live ran a full collection every second (3 to 14 ms pauses, and
// marking threads taking the pinned core): bench/search's p99 was 19.7 to 21.5 ms, and 8.9 to 10.1 ms
// with this flag; BatchGetSongs' RSS under fresh Zipf went from 251 to 265 MB (2026-11-26, bench/README.md at 9b0c7f5).
// --no-allocation-site-pretenuring --no-maglev: V8 learned from pg's rows that what some sites allocate survives,
// allocated them straight into the old generation, and the young rows those point to were promoted with them
// (a bare pg loop of 101-row queries promoted a third of what it allocated: 33 full collections in 5 s, 5 with
// both flags). The server's PostgreSQL reads on one connection ran a full collection a second; p99 before/after
// (bench/playlists, bench/library, 2026-11-27): a page of a playlist 21.4 to 3.9 ms, GetHistory 9.4 to 3.0,
// the change feed 21.0 to 2.6 (bench/README.md at 9b0c7f5, "A V8 feedback loop on pg's rows"). The cost: a slower warm-up
// (a SQLite page walk's p99 in its first 10 s under load 83 against 44 ms, then 31 against 41).
// `import` and `seed-demo` run again without the cap (src/young-generation.ts): it made the 1M import 20% slower.
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
