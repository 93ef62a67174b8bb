import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

interface SequencedTest {
  path: string;
  context: { config: { rootDir: string } };
}
type SequencerClass = new (options: { globalConfig: { randomize?: boolean; seed: number } }) => {
  sort(tests: SequencedTest[]): SequencedTest[];
};

const { default: DurationSequencer } = (await import(
  `${ROOT}test/support/duration-sequencer.mjs`
)) as { default: SequencerClass };

/** Every file the durations list names, as jest hands them to the sequencer. */
const files: SequencedTest[] = [
  'test/consumer/packed-package.e2e-spec.ts',
  'src/common/keyed-serial.spec.ts',
  'test/reliability/hostile-input.e2e-spec.ts',
  'test/not-listed-yet.spec.ts',
  'src/common/redact-url.spec.ts',
  'test/e2e/web-stream.e2e-spec.ts',
].map((path) => ({ path: `${ROOT}${path}`, context: { config: { rootDir: ROOT } } }));

const order = (randomize: boolean, seed: number) =>
  new DurationSequencer({ globalConfig: { randomize, seed } })
    .sort(files)
    .map((test) => test.path.slice(ROOT.length));

describe('the test sequencer', () => {
  it('starts the longest files first in a normal run', () => {
    const durations = JSON.parse(
      readFileSync(`${ROOT}test/support/test-durations.json`, 'utf8'),
    ) as Record<string, number>;
    const sorted = order(false, 1);
    const seconds = sorted.map((path) => durations[path] ?? 1);
    expect(seconds).toEqual([...seconds].sort((a, b) => b - a));
    expect(new Set(seconds).size).toBeGreaterThan(3); // the files differ, so the order says something
    expect(order(false, 2)).toEqual(sorted); // the seed does not matter without --randomize
  });

  it('shuffles the files with --randomize, the same way for the same seed', () => {
    const seeds = [1, 2, 3, 4, 5, 6, 7, 8];
    const orders = seeds.map((seed) => order(true, seed));
    for (const shuffled of orders)
      expect([...shuffled].sort()).toEqual([...order(false, 1)].sort());
    expect(order(true, 3)).toEqual(orders[2]);
    expect(new Set(orders.map((shuffled) => shuffled.join())).size).toBeGreaterThan(4);
    expect(orders.some((shuffled) => shuffled.join() !== order(false, 1).join())).toBe(true);
  });
});
