import pg from 'pg';
import { PostgresDialect } from 'kysely';

// int8 (bigint) columns hold Unix-millisecond times, well inside 2^53: read them as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (text) => Number(text));

export function createPostgresDialect(connectionString: string, poolSize = 10): PostgresDialect {
  const pool = new pg.Pool({ connectionString, max: poolSize });
  // An idle client that loses its connection must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  return new PostgresDialect({ pool });
}
