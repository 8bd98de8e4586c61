import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // Files run in forked workers (suites open real databases, servers and child processes), a worker
    // taking file after file without loading the modules again for each: the files hold no module-level
    // state, and each suite opens databases of its own and closes what it opened. Loading them per file
    // (vitest's isolation) took 84 s of import time summed over the files against 11 s, and 374 s of wall
    // time against 321 s on a 2-core machine: the difference between over and under six minutes there.
    pool: 'forks',
    isolate: false,
    // At least two files at a time. Vitest's default (one fewer than the cores) ran CI's 2-core machines
    // one file at a time, mostly waiting on child processes and databases: 683 s of tests against 472 s
    // two at a time on the same machine. Suites share nothing but PostgreSQL and Redis, where each uses
    // a database and keys of its own (test/dialects.ts; Redis keys are namespaced by database).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Two files at a time can double a test's wall time on a slow machine; a hang still fails.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default'],
  },
});
