// The one way the benches compare two builds or two settings.
//
// A is the baseline, B the change. Every round measures A, B and A again (a second server of the same
// build, the same setting once more), in an order that turns from round to round, so whatever the
// machine does in the meantime falls on all of them alike. A round gives two ratios, B / A and
// A again / A. The verdict is the median of the rounds' B / A ratios; the A again / A ratios, printed
// beside them, are the noise band: a verdict inside their range is no measured difference.
//
// On these shared 2-core machines CPU time drifts by 10 to 15% within minutes, more than most single
// changes: only ratios measured side by side in one run carry from one run, or machine, to another.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What one measurement of one side gave, by name: `{ cpuUs: 146, p99Ms: 11.0 }`. */
export type Figures = Record<string, number>;

export interface Side {
  label: string;
  /** Called once for each subject before the rounds: load the side has to see before it is measured. */
  warmUp?(subject: string): Promise<void> | void;
  /** One measurement of this side on `subject` (a stream, a credential, a kind of request). */
  measure(subject: string, round: number): Promise<Figures> | Figures;
}

export interface Sides {
  a: Side;
  /** The same build or setting as `a`, measured as another side: its ratios to `a` are the noise band. */
  aAgain: Side;
  /** One change, or several, each set against the same A and the same band. */
  b: Side | Side[];
}

export interface Metric {
  /** The key in Figures. */
  key: string;
  /** How the tables name it: 'server CPU us/request'. */
  label: string;
  /** Decimals of the measured values (ratios always have two). */
  digits?: number;
}

export interface Comparison {
  sides: Side[];
  subjects: string[];
  /** figures[subject][round][side index], sides in `sides`' order: A, A again, then each B. */
  figures: Figures[][][];
  /** The order the sides were measured in, each round, by index. */
  orders: number[][];
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Measures every side on every subject, `rounds` times, alternating: each round, each subject, the sides
 * one after another in that round's order. With A, A again and B, six rounds see every order once; a
 * side never holds one place in the order (first after a pause, or last) round after round.
 */
export async function alternate(options: Sides & { subjects?: string[]; rounds: number; onMeasured?(line: string): void }): Promise<Comparison> {
  const sides = [options.a, options.aAgain, ...[options.b].flat()];
  const subjects = options.subjects ?? [''];
  const log = options.onMeasured ?? ((line: string) => console.log(line));
  for (const subject of subjects) for (const side of sides) await side.warmUp?.(subject);
  const figures: Figures[][][] = subjects.map(() => []);
  const orders: number[][] = [];
  for (let round = 0; round < options.rounds; round++) {
    const turned = sides.map((_, i) => (i + round) % sides.length);
    const order = round % 2 === 1 ? turned.reverse() : turned;
    orders.push(order);
    for (const [s, subject] of subjects.entries()) {
      const measured: Figures[] = [];
      for (const index of order) measured[index] = await sides[index]!.measure(subject, round);
      figures[s]!.push(measured);
      const shown = order.map((index) => `${sides[index]!.label} ${Object.entries(measured[index]!).map(([k, v]) => `${k} ${round2(v)}`).join(' ')}`);
      log(`  round ${round + 1}${subject ? `, ${subject}` : ''}: ${shown.join('; ')}`);
    }
  }
  return { sides, subjects, figures, orders };
}

export interface Verdict {
  subject: string;
  metric: Metric;
  side: Side;
  /** Median of the per-round ratios B / A. */
  ratio: number;
  /** The A again / A ratios: their median, lowest and highest. */
  band: { median: number; low: number; high: number };
  /** Whether the ratio lies outside the band. */
  outside: boolean;
}

/** The per-round ratios of one side to A on one metric. */
export function ratios(comparison: Comparison, subject: number, side: number, key: string): number[] {
  return comparison.figures[subject]!.map((round) => round[side]![key]! / round[0]![key]!);
}

export function verdicts(comparison: Comparison, metrics: readonly Metric[]): Verdict[] {
  const out: Verdict[] = [];
  for (const [s, subject] of comparison.subjects.entries()) {
    for (const metric of metrics) {
      const aa = ratios(comparison, s, 1, metric.key);
      const band = { median: median(aa), low: Math.min(...aa), high: Math.max(...aa) };
      for (let side = 2; side < comparison.sides.length; side++) {
        const ratio = median(ratios(comparison, s, side, metric.key));
        out.push({ subject, metric, side: comparison.sides[side]!, ratio, band, outside: ratio < band.low || ratio > band.high });
      }
    }
  }
  return out;
}

/** A verdict in words: 'B 12% lower than A, outside the A/A band' or 'within the A/A band: no difference measured'. */
export function sayVerdict(verdict: Verdict): string {
  if (!verdict.outside) return 'within the A/A band: no difference measured';
  return `B ${(Math.abs(verdict.ratio - 1) * 100).toFixed(0)}% ${verdict.ratio < 1 ? 'lower' : 'higher'} than A, outside the A/A band`;
}

/**
 * The comparison as Markdown: for each subject and metric, every round's figures and ratios with their
 * medians, then one summary table of the verdicts beside their noise bands.
 */
export function printComparison(comparison: Comparison, metrics: readonly Metric[], title = ''): void {
  const { sides } = comparison;
  const bs = sides.slice(2);
  const name = (side: number) => (side === 0 ? `A: ${sides[0]!.label}` : side === 1 ? `A again: ${sides[1]!.label}` : `B: ${sides[side]!.label}`);
  const ratioHeads = [...bs.map((b) => (bs.length > 1 ? `${b.label} / A` : 'B / A')), 'A again / A'];
  const rounds = comparison.figures[0]?.length ?? 0;
  if (title) console.log(`\n${title}`);
  console.log(`\n${rounds} round${rounds === 1 ? '' : 's'}, the order of the sides turned each round; verdict: the median of the per-round ratios to A; noise band: the A again / A ratios.`);
  for (const [s, subject] of comparison.subjects.entries()) {
    for (const metric of metrics) {
      const value = (x: number) => x.toFixed(metric.digits ?? 0);
      console.log(`\n${subject ? `${subject}, ` : ''}${metric.label}\n`);
      console.log(`| round | ${sides.map((_, i) => name(i)).join(' | ')} | ${ratioHeads.join(' | ')} |`);
      console.log(`|---:|${sides.map(() => '---:').join('|')}|${ratioHeads.map(() => '---:').join('|')}|`);
      const sideRatios = [...bs.map((_, i) => ratios(comparison, s, i + 2, metric.key)), ratios(comparison, s, 1, metric.key)];
      for (let round = 0; round < rounds; round++) {
        const measured = comparison.figures[s]![round]!;
        console.log(`| ${round + 1} | ${measured.map((f) => value(f[metric.key]!)).join(' | ')} | ${sideRatios.map((r) => r[round]!.toFixed(2)).join(' | ')} |`);
      }
      const medians = sides.map((_, i) => value(median(comparison.figures[s]!.map((round) => round[i]![metric.key]!))));
      console.log(`| median | ${medians.join(' | ')} | ${sideRatios.map((r, i) => (i < bs.length ? `**${median(r).toFixed(2)}**` : median(r).toFixed(2))).join(' | ')} |`);
    }
  }
  console.log('\n| subject | metric | B | B / A (median) | A again / A: median (range) | verdict |');
  console.log('|---|---|---|---:|---|---|');
  for (const v of verdicts(comparison, metrics)) {
    console.log(`| ${v.subject || '-'} | ${v.metric.label} | ${v.side.label} | **${v.ratio.toFixed(2)}** | ${v.band.median.toFixed(2)} (${v.band.low.toFixed(2)} to ${v.band.high.toFixed(2)}) | ${sayVerdict(v)} |`);
  }
}

function round2(value: number): string {
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}

/**
 * Another commit's tree, to run as a side: extracted into a temporary directory, with this tree's
 * node_modules linked entry by entry but its own @maqam workspace links, so both builds run the same
 * dependencies. `remove` deletes it.
 */
export function treeAt(root: string, commit: string): { root: string; remove(): void } {
  if (spawnSync('git', ['-C', root, 'rev-parse', '--verify', '--quiet', `${commit}^{commit}`]).status !== 0) {
    throw new Error(`no commit ${commit} in this repository`);
  }
  const other = mkdtempSync(join(tmpdir(), 'maqam-compare-'));
  execFileSync('sh', ['-c', `git -C "${root}" archive "${commit}" | tar -x -C "${other}"`]);
  mkdirSync(join(other, 'node_modules/@maqam'), { recursive: true });
  for (const entry of readdirSync(join(root, 'node_modules'))) {
    if (entry !== '@maqam') symlinkSync(join(root, 'node_modules', entry), join(other, 'node_modules', entry));
  }
  for (const entry of readdirSync(join(root, 'node_modules/@maqam'))) symlinkSync(`../../packages/${entry}`, join(other, 'node_modules/@maqam', entry));
  return { root: other, remove: () => rmSync(other, { recursive: true, force: true }) };
}
