import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * Runs the longest test files first, by the durations checked in with the suite
 * (`test/support/test-durations.json`, written by `node scripts/test-timings.mjs <report> --write`),
 * so that with several workers no long file starts last and runs alone at the end — also from a
 * cold jest cache, which has no durations of its own. A file not listed yet counts as short.
 *
 * With `--randomize`, jest shuffles the tests inside each file; this shuffles the files too, from
 * the same seed (`--seed`, printed by jest), so that files meet other neighbours in each worker and
 * a run's order replays with its seed. Such a run is slower (a long file may start last).
 */
export default class DurationSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.globalConfig = options?.globalConfig;
    this.durations = JSON.parse(
      readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'),
    );
  }

  sort(tests) {
    const duration = (test) =>
      this.durations[relative(test.context.config.rootDir, test.path)] ?? 1;
    const longestFirst = [...tests].sort(
      (a, b) => duration(b) - duration(a) || (a.path < b.path ? -1 : 1),
    );
    return this.globalConfig?.randomize
      ? shuffled(longestFirst, this.globalConfig.seed)
      : longestFirst;
  }
}

/** A Fisher–Yates shuffle driven by mulberry32 from `seed`: the same seed, the same order. */
export function shuffled(items, seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const result = [...items];
  for (let i = result.length - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    [result[i], result[j]] = [result[j], result[i]];
  }
  return result;
}
