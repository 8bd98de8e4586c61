import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/**
 * `bin/maqam.js` starts Node with `--max-semi-space-size=8`: a small young
 * generation keeps the server's resident memory down under load. A load
 * (`import`, `seed-demo`) is the opposite case: each batch's records and
 * rows live until the batch is written, so with 8 MB most of them are
 * copied by a scavenge or two before they die. The 1M demo import took 121 s
 * with the cap against 100 to 114 s with V8's default on the same machine
 * (bench/README.md at 9b0c7f5). Those commands therefore run again in a child Node
 * without the cap; run directly (`node bin/maqam.js`, as the benches and
 * tests do) they have none to shed.
 */
const CAP = '--max-semi-space-size';

/** True when this process runs with the server's young-generation cap. */
export function youngGenerationCapped(): boolean {
  return process.execArgv.some((flag) => flag === CAP || flag.startsWith(`${CAP}=`));
}

/**
 * Runs this CLI again with `argv` in a child Node without the cap, its
 * standard streams this process's, and answers its exit code. Signals this
 * process gets are passed on, so stopping the parent stops the load.
 */
export function runUncapped(argv: readonly string[]): Promise<number> {
  const execArgv: string[] = [];
  for (let i = 0; i < process.execArgv.length; i++) {
    const flag = process.execArgv[i]!;
    if (flag === CAP) i++; // `--max-semi-space-size 8`: its value too
    else if (!flag.startsWith(`${CAP}=`)) execArgv.push(flag);
  }
  const child = spawn(process.execPath, [...execArgv, process.argv[1]!, ...argv], { stdio: 'inherit' });
  const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  for (const signal of signals) process.on(signal, forward);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      for (const s of signals) process.off(s, forward);
      resolve(code ?? 128 + (signal === null ? 0 : constants.signals[signal]));
    });
  });
}
