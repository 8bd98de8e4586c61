import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { expect } from 'vitest';
import { runCli as run } from '../src/cli.ts';

export const BIN = resolve(import.meta.dirname, '../bin/maqam.js');

/**
 * Runs a maqam command in this process, as `bin/maqam.js` would run it in
 * its own, with this environment plus `env`, and `input` on its standard
 * input: what it printed and its exit code. (A Node process per command cost
 * more than most commands; `spawnCli` is for what needs one.)
 */
export async function runCli(env: Record<string, string>, args: string[], input?: string) {
  let stdout = '';
  let stderr = '';
  const code = await run(args, {
    env: { ...process.env, ...env },
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: (async function* () {
      if (input !== undefined) yield Buffer.from(input);
    })(),
  });
  return { code, stdout, stderr };
}

/** Runs with --json, expects success, and parses the record printed. */
export async function runCliJson(env: Record<string, string>, args: string[], input?: string) {
  const result = await runCli(env, [...args, '--json'], input);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

/** Runs the real maqam CLI in a process of its own (under this Node): for what a process must show (exit, flags, signals). */
export function spawnCli(env: Record<string, string>, args: string[], input?: string) {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, encoding: 'utf8', input, timeout: 120_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
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
