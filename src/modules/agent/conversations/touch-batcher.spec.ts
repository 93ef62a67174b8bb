import { describe, expect, it } from '@jest/globals';
import { MAX_TOUCH_BATCH, type TouchRow, TouchBatcher } from './touch-batcher.js';

const row = (conversationId: string, at = 1): TouchRow => ({
  conversationId,
  namespace: '',
  at,
  title: '',
  preview: '',
});

/** A writer that records each call's rows and settles when the test says. */
function gatedWriter(fail: (rows: readonly TouchRow[]) => boolean = () => false) {
  const calls: string[][] = [];
  const gates: Array<() => void> = [];
  const write = (rows: readonly TouchRow[]) => {
    calls.push(rows.map((r) => `${r.conversationId}@${r.at}`));
    return new Promise<void>((resolve, reject) =>
      gates.push(() => (fail(rows) ? reject(new Error('bad row')) : resolve())),
    );
  };
  /** Lets every write so far settle, then lets the batcher send its next one. */
  const release = async () => {
    for (const gate of gates.splice(0)) gate();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { calls, write, release };
}

describe('TouchBatcher', () => {
  it('writes a touch alone at once, and the touches that came meanwhile as one batch', async () => {
    const writer = gatedWriter();
    const batcher = new TouchBatcher(writer.write);
    const first = batcher.touch(row('b'));
    expect(writer.calls).toEqual([['b@1']]);
    const later = ['d', 'a', 'c'].map((id) => batcher.touch(row(id)));
    expect(writer.calls).toHaveLength(1);
    await writer.release();
    await first;
    // Sorted by id in the statement.
    expect(writer.calls).toEqual([['b@1'], ['a@1', 'c@1', 'd@1']]);
    await writer.release();
    await Promise.all(later);
    // Idle again: the next touch goes at once.
    void batcher.touch(row('e'));
    expect(writer.calls).toHaveLength(3);
    await writer.release();
  });

  it("puts a conversation's later touches in later batches, in the order they came", async () => {
    const writer = gatedWriter();
    const batcher = new TouchBatcher(writer.write);
    const all = [row('x', 1), row('x', 2), row('y', 1), row('x', 3), row('y', 2)].map((r) =>
      batcher.touch(r),
    );
    for (let i = 0; i < 4; i += 1) await writer.release();
    await Promise.all(all);
    expect(writer.calls).toEqual([['x@1'], ['x@2', 'y@1'], ['x@3', 'y@2']]);
  });

  it(`takes at most ${MAX_TOUCH_BATCH} touches in a batch`, async () => {
    const writer = gatedWriter();
    const batcher = new TouchBatcher(writer.write);
    const all = Array.from({ length: MAX_TOUCH_BATCH + 6 }, (_, i) =>
      batcher.touch(row(`c${String(i).padStart(3, '0')}`)),
    );
    for (let i = 0; i < 3; i += 1) await writer.release();
    await Promise.all(all);
    expect(writer.calls.map((rows) => rows.length)).toEqual([1, MAX_TOUCH_BATCH, 5]);
  });

  it('writes a failed batch one by one: only the touch that fails is rejected', async () => {
    const writer = gatedWriter((rows) => rows.some((r) => r.conversationId === 'bad'));
    const batcher = new TouchBatcher(writer.write);
    const first = batcher.touch(row('a'));
    const outcomes = Promise.allSettled(['b', 'bad', 'c'].map((id) => batcher.touch(row(id))));
    for (let i = 0; i < 5; i += 1) await writer.release();
    await first;
    expect((await outcomes).map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
    ]);
    expect(writer.calls).toEqual([['a@1'], ['b@1', 'bad@1', 'c@1'], ['b@1'], ['bad@1'], ['c@1']]);
  });

  it('rejects a touch whose write throws at once, and stays usable', async () => {
    let calls = 0;
    const batcher = new TouchBatcher(() => {
      calls += 1;
      if (calls === 1) throw new Error('thrown');
      return Promise.resolve();
    });
    await expect(batcher.touch(row('a'))).rejects.toThrow('thrown');
    await expect(batcher.touch(row('b'))).resolves.toBeUndefined();
  });
});
