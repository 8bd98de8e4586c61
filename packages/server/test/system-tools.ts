// The system programs some suites need (Debian's Chromium, ffmpeg). Without
// one, a suite says loudly what it skips; CI sets MAQAM_REQUIRE_BROWSER=1 and
// MAQAM_REQUIRE_FFMPEG=1 so a missing program fails instead.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.MAQAM_CHROMIUM ?? '/usr/bin/chromium';

function available(present: boolean, requireVariable: string, missing: string, skipping: string): boolean {
  if (present) return true;
  if (process.env[requireVariable] === '1') throw new Error(`${requireVariable}=1 but ${missing}`);
  process.stderr.write(`\n*** ${missing}: SKIPPING ${skipping} ***\n\n`);
  return false;
}

/** Whether Debian's Chromium is here; `skipping` names what a suite leaves out without it. */
export function browserAvailable(skipping: string): boolean {
  return available(existsSync(CHROMIUM), 'MAQAM_REQUIRE_BROWSER', `there is no Chromium at ${CHROMIUM} (apt-get install chromium)`, skipping);
}

/** Whether ffmpeg is on the PATH; `skipping` names what a suite leaves out without it. */
export function ffmpegAvailable(skipping: string): boolean {
  return available(spawnSync('ffmpeg', ['-version']).status === 0, 'MAQAM_REQUIRE_FFMPEG', 'ffmpeg is not installed (apt-get install ffmpeg)', skipping);
}

/**
 * Headless Debian Chromium. Without the background-networking flags it keeps
 * trying Google's hosts, which this machine's closed network refuses.
 */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  });
}
