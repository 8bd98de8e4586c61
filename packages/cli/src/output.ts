/** All CLI output goes through here: records as JSON with --json, else as readable text. */
export interface Output {
  readonly json: boolean;
  record(value: unknown, human: () => string): void;
  info(text: string): void;
  progress(fraction: number, detail: string): void;
  done(): void;
}

/** Where output goes: a process's standard streams, or a test's. */
export interface TextSink {
  write(text: string): unknown;
  readonly isTTY?: boolean;
}

export function createOutput(json: boolean, stdout: TextSink, stderr: TextSink): Output {
  const showProgress = stderr.isTTY === true && !json;
  let drawn = false;
  return {
    json,
    record(value, human) {
      stdout.write(json ? `${JSON.stringify(value)}\n` : `${human()}\n`);
    },
    info(text) {
      // Informational lines go to stderr so stdout stays machine-readable.
      stderr.write(`${text}\n`);
    },
    progress(fraction, detail) {
      if (!showProgress) return;
      const width = 30;
      const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
      stderr.write(`\r[${'#'.repeat(filled)}${' '.repeat(width - filled)}] ${(fraction * 100).toFixed(0).padStart(3)}% ${detail}`);
      drawn = true;
    },
    done() {
      if (drawn) stderr.write('\n');
      drawn = false;
    },
  };
}

/** Seconds as people read a remaining time: 42s, 3m 05s, 1h 02m. */
function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

/**
 * The detail of a progress bar: how many, how fast, and how long is left at
 * that pace, e.g. "120,000 lines · 41,200 lines/s · 6s left". The first
 * fifth of a second gives no rate (it would be noise).
 */
export function progressMeter(unit: string, clock: () => number = () => performance.now()) {
  const started = clock();
  return (count: number, fraction: number): string => {
    const seconds = (clock() - started) / 1000;
    const counted = `${count.toLocaleString('en')} ${unit}`;
    if (seconds < 0.2 || count === 0) return counted;
    const rate = `${Math.round(count / seconds).toLocaleString('en')} ${unit}/s`;
    const left = fraction > 0 && fraction < 1 ? ` · ${duration((seconds * (1 - fraction)) / fraction)} left` : '';
    return `${counted} · ${rate}${left}`;
  };
}

/** A mistake in how the command was called: printed with usage, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/**
 * "90d", "24h", "30m", "45s" or "2w", to seconds. The unit is required: a
 * bare "90" meant days to the operator who typed it and seconds to us.
 */
export function parseDuration(text: string, option: string): number {
  const match = /^(\d+)([smhdw])$/.exec(text.trim());
  if (!match) throw new UsageError(`${option} takes a duration with its unit, like 90d, 24h, 30m or 45s; got "${text}"`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export function parsePositiveInteger(text: string, option: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new UsageError(`${option} takes a positive integer; got "${text}"`);
  return value;
}

/** Rows as aligned columns under a header, for people (--json gives the records). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const width = header.map((title, i) => Math.max(title.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(width[i]!))).join('  ');
  return [line(header), ...rows.map(line)].join('\n');
}
