import pg from 'pg';

/** The PostgreSQL the benches use (MAQAM_TEST_POSTGRES, as the tests do). */
const ADMIN_URL = process.env.MAQAM_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A fresh, empty database `name` (dropped first if a run left one), or undefined when PostgreSQL does not answer. */
export async function freshPostgresDatabase(name: string): Promise<string | undefined> {
  const admin = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 2000 });
  try {
    await admin.connect();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
    const url = new URL(ADMIN_URL);
    url.pathname = `/${name}`;
    return url.toString();
  } catch {
    return undefined;
  } finally {
    await admin.end().catch(() => {});
  }
}
