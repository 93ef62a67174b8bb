import { describe, expect, it } from '@jest/globals';
import {
  MAX_BATCHES_IN_FLIGHT,
  MAX_WRITE_BATCH,
  KeyedWriteBatcher,
  type KeyedWrites,
} from './keyed-write-batcher.js';

interface Row {
  readonly id: string;
  readonly at: number;
}
const row = (id: string, at = 1): Row => ({ id, at });
const batcher = (
  write: (rows: readonly Row[]) => Promise<readonly string[]>,
  rewriteAlone?: KeyedWrites<Row, string>['rewriteAlone'],
  // Never stalled unless a test says so: a slow machine must not change what goes together.
  stalledAfterMs = 600_000,
) => new KeyedWriteBatcher<Row, string>({ key: (r) => r.id, write, rewriteAlone, stalledAfterMs });

/** A writer that records each call's rows and settles when the test says. */
function gatedWriter(fail: (rows: readonly Row[]) => boolean = () => false) {
  const calls: string[][] = [];
  const gates: Array<() => void> = [];
  /** Answers each row with `id@at`. */
  const write = (rows: readonly Row[]) => {
    calls.push(rows.map((r) => `${r.id}@${r.at}`));
    return new Promise<string[]>((resolve, reject) =>
      gates.push(() =>
        fail(rows) ? reject(new Error('bad row')) : resolve(rows.map((r) => `${r.id}@${r.at}`)),
      ),
    );
  };
  /** Lets every write so far settle, then lets the batcher send its next one. */
  const release = async () => {
    for (const gate of gates.splice(0)) gate();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { calls, write, release };
}

describe('KeyedWriteBatcher', () => {
  it('writes a row alone at once, and the rows that came meanwhile as one batch', async () => {
    const writer = gatedWriter();
    const batches = batcher(writer.write);
    const first = batches.submit(row('b'));
    expect(writer.calls).toEqual([['b@1']]);
    const later = ['d', 'a', 'c'].map((id) => batches.submit(row(id)));
    expect(writer.calls).toHaveLength(1);
    await writer.release();
    await expect(first).resolves.toBe('b@1');
    // Sorted by key in the statement; each caller gets its own row's result.
    expect(writer.calls).toEqual([['b@1'], ['a@1', 'c@1', 'd@1']]);
    await writer.release();
    await expect(Promise.all(later)).resolves.toEqual(['d@1', 'a@1', 'c@1']);
    // Idle again: the next touch goes at once.
    void batches.submit(row('e'));
    expect(writer.calls).toHaveLength(3);
    await writer.release();
  });

  it("puts a key's later rows in later batches, in the order they came", async () => {
    const writer = gatedWriter();
    const batches = batcher(writer.write);
    const all = [row('x', 1), row('x', 2), row('y', 1), row('x', 3), row('y', 2)].map((r) =>
      batches.submit(r),
    );
    for (let i = 0; i < 4; i += 1) await writer.release();
    await Promise.all(all);
    expect(writer.calls).toEqual([['x@1'], ['x@2', 'y@1'], ['x@3', 'y@2']]);
  });

  it(`takes at most ${MAX_WRITE_BATCH} rows in a batch`, async () => {
    const writer = gatedWriter();
    const batches = batcher(writer.write);
    const all = Array.from({ length: MAX_WRITE_BATCH + 6 }, (_, i) =>
      batches.submit(row(`c${String(i).padStart(3, '0')}`)),
    );
    for (let i = 0; i < 3; i += 1) await writer.release();
    await Promise.all(all);
    expect(writer.calls.map((rows) => rows.length)).toEqual([1, MAX_WRITE_BATCH, 5]);
  });

  it('writes a failed batch one by one: only the row that fails is rejected', async () => {
    const writer = gatedWriter((rows) => rows.some((r) => r.id === 'bad'));
    const batches = batcher(writer.write);
    const first = batches.submit(row('a'));
    const outcomes = Promise.allSettled(['b', 'bad', 'c'].map((id) => batches.submit(row(id))));
    for (let i = 0; i < 5; i += 1) await writer.release();
    await first;
    expect((await outcomes).map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(writer.calls).toEqual([['a@1'], ['b@1', 'bad@1', 'c@1'], ['b@1'], ['bad@1'], ['c@1']]);
  });

  it("gives a failed batch's error to each caller where rewriteAlone says no", async () => {
    const writer = gatedWriter((rows) => rows.some((r) => r.id === 'bad'));
    const seen: unknown[] = [];
    const batches = batcher(writer.write, (error) => {
      seen.push(error);
      return false;
    });
    const first = batches.submit(row('a'));
    const outcomes = Promise.allSettled(['b', 'bad'].map((id) => batches.submit(row(id))));
    for (let i = 0; i < 3; i += 1) await writer.release();
    await first;
    expect((await outcomes).map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    expect(writer.calls).toEqual([['a@1'], ['b@1', 'bad@1']]);
    expect(seen).toEqual([new Error('bad row')]);
  });

  it('fails a batch that answers with the wrong number of results', async () => {
    let calls = 0;
    const batches = batcher(
      async (rows) => {
        calls += 1;
        return calls === 2 ? [] : rows.map((r) => r.id);
      },
      () => false,
    );
    const all = Promise.allSettled(['a', 'b', 'c'].map((id) => batches.submit(row(id))));
    expect((await all).map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
    ]);
  });

  it('rejects a row whose write throws at once, and stays usable', async () => {
    let calls = 0;
    const batches = batcher(() => {
      calls += 1;
      if (calls === 1) throw new Error('thrown');
      return Promise.resolve(['ok']);
    });
    await expect(batches.submit(row('a'))).rejects.toThrow('thrown');
    await expect(batches.submit(row('b'))).resolves.toBe('ok');
  });

  it('sends the next batch beside one that has stalled, keeping its keys back', async () => {
    const writer = gatedWriter();
    const batches = batcher(writer.write, undefined, 20);
    const first = batches.submit(row('slow'));
    const later = [row('slow', 2), row('a'), row('b')].map((r) => batches.submit(r));
    expect(writer.calls).toEqual([['slow@1']]);
    await new Promise((resolve) => setTimeout(resolve, 60));
    // The stalled batch still holds `slow`: its second row waits for it.
    expect(writer.calls).toEqual([['slow@1'], ['a@1', 'b@1']]);
    for (let i = 0; i < 3; i += 1) await writer.release();
    await first;
    await Promise.all(later);
    expect(writer.calls).toEqual([['slow@1'], ['a@1', 'b@1'], ['slow@2']]);
  });

  it(`keeps at most ${MAX_BATCHES_IN_FLIGHT} batches in flight however long they stall`, async () => {
    const writer = gatedWriter();
    const batches = batcher(writer.write, undefined, 5);
    const all: Array<Promise<string>> = [];
    for (let i = 0; i < 10; i += 1) {
      all.push(batches.submit(row(`k${i}`)));
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
    expect(writer.calls).toHaveLength(MAX_BATCHES_IN_FLIGHT);
    for (let i = 0; i < 6 && writer.calls.length < 10; i += 1) await writer.release();
    await writer.release();
    await Promise.all(all);
    expect(writer.calls.flat().sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `k${i}@1`).sort(),
    );
  });

  it('drains a large backlog, and a long one of a single key, without wedging', async () => {
    const batches = batcher(async (rows) => rows.map((r) => r.id));
    const many = Array.from({ length: 150_000 }, (_, i) => batches.submit(row(`k${i}`)));
    const hot = Array.from({ length: 20_000 }, (_, i) => batches.submit(row('hot', i)));
    expect(await Promise.all(many)).toHaveLength(150_000);
    expect(await Promise.all(hot)).toHaveLength(20_000);
    await expect(batches.submit(row('after'))).resolves.toBe('after');
  });

  it('rejects the callers of a batch whose rewriteAlone throws, and stays usable', async () => {
    let calls = 0;
    const batches = batcher(
      async (rows) => {
        calls += 1;
        if (calls === 2) throw new Error('batch failed');
        return rows.map((r) => r.id);
      },
      () => {
        throw new Error('rewriteAlone threw');
      },
    );
    const all = Promise.allSettled(['a', 'b', 'c'].map((id) => batches.submit(row(id))));
    expect((await all).map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'rejected',
    ]);
    await expect(batches.submit(row('d'))).resolves.toBe('d');
  });
});
