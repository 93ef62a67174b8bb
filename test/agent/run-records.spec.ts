import { describe, expect, it } from '@jest/globals';
import { InMemoryRunStore } from '../../src/modules/agent/runs/in-memory.run-store.js';
import { RunRecords, STALE_RUNNING_MS } from '../../src/modules/agent/runs/run-records.js';
import type { RunStore } from '../../src/modules/agent/runs/run-store.interface.js';

/** Run records on the in-memory store with a clock the test moves (the backends' CAS is checked in run-store.spec). */
function records(leaseMs = 1_000) {
  const clock = { at: 1_000_000 };
  const store = new InMemoryRunStore(60 * 60_000, () => clock.at);
  return { clock, store, records: new RunRecords(store, leaseMs, () => clock.at) };
}

describe('RunRecords', () => {
  it('reserves in one write: the reservation is the running record, never a record-less claim', async () => {
    const { records: runs, store } = records();
    expect(await runs.reserve('r1', 'c1', 'owner-a')).toBeUndefined();
    const entries = await store.entries('r1');
    expect(entries.map(([key]) => key)).toEqual(['status']);
    expect(await runs.get('r1')).toMatchObject({ status: 'running', conversationId: 'c1' });
    // The lease stays inside: callers see the public record.
    expect(await runs.get('r1')).not.toHaveProperty('owner');
    expect(await runs.get('r1')).not.toHaveProperty('leaseUntil');
  });

  it('gives a reservation to one of many concurrent callers', async () => {
    const { records: runs } = records();
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) => runs.reserve('r1', 'c1', `owner-${i}`)),
    );
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
  });

  it('takes over a run whose holder stopped renewing, once its lease ran out — exactly one taker', async () => {
    const { records: runs, clock } = records(1_000);
    await runs.reserve('r1', 'c1', 'dead');
    clock.at += 999;
    expect(await runs.reserve('r1', 'c1', 'b')).toMatchObject({ status: 'running' });
    clock.at += 2;
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, (_, i) => runs.reserve('r1', 'c1', `taker-${i}`)),
    );
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
  });

  it('keeps a renewed run from being taken over, and stops renewing for a holder that lost it', async () => {
    const { records: runs, clock } = records(1_000);
    await runs.reserve('r1', 'c1', 'a');
    for (let i = 0; i < 5; i += 1) {
      clock.at += 600;
      expect(await runs.renew('r1', 'a')).toBe('renewed');
      expect(await runs.reserve('r1', 'c1', 'b')).toMatchObject({ status: 'running' });
    }
    clock.at += 1_001;
    expect(await runs.reserve('r1', 'c1', 'b')).toBeUndefined();
    expect(await runs.renew('r1', 'a')).toBe('gone');
    expect(await runs.renew('r1', 'b')).toBe('renewed');
    expect(await runs.renew('unknown', 'a')).toBe('waiting'); // not written yet: keep holding
    await runs.set('q', 'c1', 'queued');
    expect(await runs.renew('q', 'a')).toBe('waiting'); // a queue holds it until the attempt starts
  });

  it('takes over a failed run, never a completed one; a queued run held by a queue has no lease', async () => {
    const { records: runs, clock } = records(1_000);
    await runs.set('f', 'c1', 'failed', { error: new Error('boom') });
    expect(await runs.reserve('f', 'c1', 'a')).toBeUndefined();
    await runs.set('d', 'c1', 'completed');
    expect(await runs.reserve('d', 'c1', 'a')).toMatchObject({ status: 'completed' });
    await runs.set('q', 'c1', 'queued');
    clock.at += 10 * 60_000;
    expect(await runs.reserve('q', 'c1', 'a')).toMatchObject({ status: 'queued' });
    expect(await runs.headState('q')).toBe('queued');
  });

  it('takes over a queued run whose submitter died before the queue had it', async () => {
    const { records: runs, clock } = records(1_000);
    await runs.set('q', 'c1', 'queued', { owner: 'submitter' });
    expect(await runs.headState('q')).toBe('live');
    clock.at += 1_001;
    expect(await runs.headState('q')).toBe('abandoned');
    expect(await runs.reserve('q', 'c1', 'retry')).toBeUndefined();
  });

  it('records a run whose job is gone as failed, unless it settled or is held under a live lease', async () => {
    const { records: runs, clock } = records(1_000);
    await runs.set('lost', 'c1', 'queued');
    expect(await runs.markLost('lost', 'c1')).toBe(true);
    expect(await runs.get('lost')).toMatchObject({
      status: 'failed',
      error: { name: 'RunLostError' },
    });
    expect(await runs.reserve('lost', 'c1', 'retry')).toBeUndefined(); // the same key runs it again
    await runs.set('held', 'c1', 'queued', { owner: 'submitter' });
    expect(await runs.markLost('held', 'c1')).toBe(false);
    clock.at += 1_001;
    expect(await runs.markLost('held', 'c1')).toBe(true);
    await runs.set('done', 'c1', 'completed');
    expect(await runs.markLost('done', 'c1')).toBe(false);
  });

  it('takes over a running record of an older version (no lease) after 10 minutes only', async () => {
    const { records: runs, store, clock } = records();
    const legacy = {
      runId: 'old',
      conversationId: 'c1',
      status: 'running',
      createdAt: clock.at,
      updatedAt: clock.at,
    };
    await store.put('old', 'status', JSON.stringify(legacy));
    clock.at += STALE_RUNNING_MS;
    expect(await runs.reserve('old', 'c1', 'a')).toMatchObject({ status: 'running' });
    clock.at += 1;
    expect(await runs.reserve('old', 'c1', 'a')).toBeUndefined();
  });

  it('never downgrades a completed run, never writes over another conversation, and honours onlyIfHeld', async () => {
    const { records: runs } = records();
    await runs.set('r', 'c1', 'completed');
    expect(await runs.set('r', 'c1', 'failed')).toMatchObject({ status: 'completed' });
    expect(await runs.set('r', 'c2', 'completed')).toMatchObject({ conversationId: 'c1' });
    await runs.reserve('h', 'c1', 'a');
    expect(await runs.set('h', 'c1', 'failed', { onlyIfHeld: { owner: 'b' } })).toMatchObject({
      status: 'running',
    });
    expect(
      await runs.set('h', 'c1', 'queued', { onlyIfHeld: { owner: 'a', status: 'queued' } }),
    ).toMatchObject({ status: 'running' });
    expect(await runs.set('h', 'c1', 'failed', { onlyIfHeld: { owner: 'a' } })).toMatchObject({
      status: 'failed',
    });
    expect(await runs.headState('h')).toBe('settled');
    expect(await runs.headState('unknown')).toBe('settled');
  });

  it('writes every transition as one compare-and-set: concurrent attempts are all counted', async () => {
    const { records: runs } = records();
    await Promise.all(
      Array.from({ length: 12 }, () =>
        runs.set('r', 'c1', 'running', { startsAttempt: true, owner: 'a' }),
      ),
    );
    expect((await runs.get('r'))?.attempts).toBe(12);
  });

  it('fails loudly, not silently, when the record cannot be written', async () => {
    const broken: RunStore = {
      ...new InMemoryRunStore(),
      get: async () => undefined,
      putIfAbsent: async () => 'someone else',
      replaceIf: async () => false,
    } as unknown as RunStore;
    const runs = new RunRecords(broken);
    await expect(runs.set('r', 'c1', 'completed')).rejects.toThrow(/kept changing/);
  });

  it('writes against what the caller knew without reading first, and reads when that was stale', async () => {
    const { records: runs, store } = records();
    let reads = 0;
    const get = store.get.bind(store);
    store.get = (runId, key) => {
      if (key === 'status') reads += 1;
      return get(runId, key);
    };
    const known = { json: null, claimedAt: 5 };
    await runs.set('r1', 'c1', 'running', { startsAttempt: true, owner: 'a' }, known);
    await runs.set('r1', 'c1', 'completed', { result: {} as never }, known);
    expect(reads).toBe(0);
    expect(await runs.get('r1', known)).toMatchObject({ status: 'completed', createdAt: 5 });
    expect(reads).toBe(0);

    // Another writer changed the record after the caller's snapshot: the write reads and applies.
    const stale = { json: null };
    await runs.set('r2', 'c1', 'running', { startsAttempt: true, owner: 'a' }, stale);
    const snapshot = { ...stale };
    await runs.set('r2', 'c1', 'running', { startsAttempt: true, owner: 'b' });
    await runs.set('r2', 'c1', 'running', { startsAttempt: true, owner: 'a' }, snapshot);
    expect(await runs.get('r2')).toMatchObject({ attempts: 3 });
    // A stale snapshot never decides a write away: held by 'b' now, not 'a' (as the snapshot said).
    const heldByA = { json: stale.json };
    await runs.set('r2', 'c1', 'running', { owner: 'b' });
    const kept = await runs.set('r2', 'c1', 'failed', { onlyIfHeld: { owner: 'a' } }, heldByA);
    expect(kept).toMatchObject({ status: 'running' });
    expect(await runs.get('r2')).toMatchObject({ status: 'running', attempts: 3 });
    // Nothing recorded yet, as far as a stale snapshot knows: the same.
    const none = { json: null };
    expect(
      await runs.set('r2', 'c1', 'failed', { onlyIfHeld: { owner: 'x' } }, none),
    ).toMatchObject({ status: 'running' });
  });
});
