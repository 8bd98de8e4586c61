import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/test/**/*.test.ts'],
    // Each file gets its own process: suites open real databases and servers.
    pool: 'forks',
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
