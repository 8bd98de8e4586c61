import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { expect } from 'vitest';

export const BIN = resolve(import.meta.dirname, '../bin/maqam.js');

/** Runs the real maqam CLI (under this Node) with the given environment. */
export function runCli(env: Record<string, string>, args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', input, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs with --json, expects success, and parses the record printed. */
export function runCliJson(env: Record<string, string>, args: string[], input?: string) {
  const result = runCli(env, [...args, '--json'], input);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** Every row of a table of a SQLite database file, as JSON text (for "no secret stored" checks). */
export function dumpTable(path: string, table: string): string {
  const db = new DatabaseSync(path);
  try {
    return JSON.stringify(db.prepare(`select * from ${table}`).all());
  } finally {
    db.close();
  }
}
