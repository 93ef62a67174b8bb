import { afterAll, beforeAll, expect } from '@jest/globals';
import { appendFileSync, readFileSync } from 'node:fs';

/**
 * With `TEST_CPU_REPORT=<file>`, appends one JSON line per test file: its wall time, the CPU
 * seconds its worker and the child processes it waited for (apps, installs) used meanwhile (from
 * `/proc/self/stat`), and how many times it booted the example app. `scripts/test-timings.mjs --cpu <file>` reads it. Off otherwise.
 */
const report = process.env.TEST_CPU_REPORT;

/** utime, stime, cutime, cstime of this process, in seconds. */
function cpuSeconds(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14–17 of proc(5), counted after the command: 12–15 here (0-based 11–14).
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / 100;
}

if (report) {
  let started = 0;
  let cpu = 0;
  beforeAll(() => {
    started = performance.now();
    cpu = cpuSeconds();
  });
  afterAll(() => {
    appendFileSync(
      report,
      `${JSON.stringify({
        file: expect.getState().testPath,
        wall: (performance.now() - started) / 1000,
        cpu: cpuSeconds() - cpu,
        boots: (globalThis as { appBoots?: number }).appBoots ?? 0,
        worker: process.env.JEST_WORKER_ID,
      })}\n`,
    );
  });
}
