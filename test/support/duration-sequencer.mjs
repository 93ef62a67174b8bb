import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import Sequencer from '@jest/test-sequencer';

/**
 * Runs the longest test files first, by the durations checked in with the suite
 * (`test/support/test-durations.json`, written by `node scripts/test-timings.mjs <report> --write`),
 * so that with several workers no long file starts last and runs alone at the end — also from a
 * cold jest cache, which has no durations of its own. A file not listed yet counts as short.
 */
export default class DurationSequencer extends Sequencer {
  constructor(options) {
    super(options);
    this.durations = JSON.parse(
      readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'),
    );
  }

  sort(tests) {
    const duration = (test) =>
      this.durations[relative(test.context.config.rootDir, test.path)] ?? 1;
    return [...tests].sort((a, b) => duration(b) - duration(a) || (a.path < b.path ? -1 : 1));
  }
}
