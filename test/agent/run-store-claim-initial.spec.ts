import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import type { RunClaim } from '../../src/modules/agent/runs/run-claim.js';
import { claimOf } from '../support/run-claims.js';
import { sharedRunStores } from '../support/shared-run-stores.js';

const backends = sharedRunStores('claim-initial');

/** A claim of `id` for `owner` at `at`, storing `initial` as the run's first record. */
const claimWith = (id: string, owner: string, at: number, initial?: string): RunClaim => ({
  ...claimOf(id, owner, at),
  ...(initial === undefined ? {} : { initial }),
});

describe.each(backends)("a run's claim storing its first record, on %s", (_name, open) => {
  const ids = () => {
    const id = `run-${randomUUID()}`;
    return { id, owner: `conv-${id}` };
  };

  it('stores the first record with the first claim, and never over a record', async () => {
    const store = await open();
    const { id, owner } = ids();
    const at = Date.now();
    expect(await store.claim(claimWith(id, owner, at, '{"first":1}'))).toEqual({
      owner,
      bound: true,
      read: undefined,
      at,
      initial: true,
    });
    expect(await store.get(id, 'status')).toBe('{"first":1}');
    // A later claim reads it, and stores nothing over it.
    expect(await store.claim(claimWith(id, owner, at + 5, '{"second":1}'))).toEqual({
      owner,
      bound: true,
      read: '{"first":1}',
      at,
    });
    expect(await store.get(id, 'status')).toBe('{"first":1}');
    await store.deleteRuns([id, `#o:${owner}`, `#e:${owner}`]);
  });

  it('stores nothing for a run claimed before (its time stored, no record), nor for another owner', async () => {
    const store = await open();
    const { id, owner } = ids();
    const at = Date.now();
    await store.claim(claimWith(id, owner, at - 10));
    expect(await store.claim(claimWith(id, owner, at, '{"late":1}'))).toEqual({
      owner,
      bound: true,
      read: undefined,
      at: at - 10,
    });
    expect(await store.claim(claimWith(id, `other-${id}`, at, '{"other":1}'))).toEqual({
      owner,
      bound: false,
    });
    expect(await store.get(id, 'status')).toBeUndefined();
    await store.deleteRuns([id, `#o:${owner}`, `#e:${owner}`]);
  });

  it('lets exactly one of concurrent first claims store its record; the others read it or nothing', async () => {
    const store = await open();
    const { id, owner } = ids();
    const at = Date.now();
    const records = Array.from({ length: 8 }, (_, i) => `{"claim":${i}}`);
    const claims = await Promise.all(
      records.map((record, i) => store.claim(claimWith(id, owner, at + i, record))),
    );
    const stored = await store.get(id, 'status');
    const winners = claims.filter((claim) => claim.bound && claim.initial);
    expect(winners).toHaveLength(1);
    const winner = claims.indexOf(winners[0]!);
    expect(stored).toBe(records[winner]);
    // Every claim bound the run at the winner's time (the first stored); the others stored nothing.
    for (const [i, claim] of claims.entries()) {
      expect(claim).toMatchObject({ owner, bound: true, at: at + winner });
      if (i !== winner) expect(claim).not.toHaveProperty('initial');
    }
    await store.deleteRuns([id, `#o:${owner}`, `#e:${owner}`]);
  });

  it('answers the first record to every concurrent first claim of one time that did not store it', async () => {
    const store = await open();
    const { id, owner } = ids();
    const at = Date.now();
    const records = Array.from({ length: 8 }, (_, i) => `{"claim":${i}}`);
    // One claim time: each claim stores it or finds it equal to its own, so each tries its record.
    const claims = await Promise.all(
      records.map((record) => store.claim(claimWith(id, owner, at, record))),
    );
    const stored = await store.get(id, 'status');
    const winners = claims.filter((claim) => claim.bound && claim.initial);
    expect(winners).toHaveLength(1);
    expect(stored).toBe(records[claims.indexOf(winners[0]!)]);
    for (const claim of claims)
      if (claim !== winners[0]) expect(claim).toEqual({ owner, bound: true, read: stored, at });
    await store.deleteRuns([id, `#o:${owner}`, `#e:${owner}`]);
  });
});
