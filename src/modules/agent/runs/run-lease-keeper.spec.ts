import { describe, expect, it, jest } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemoryRunStore } from './in-memory.run-store.js';
import { RunLeaseKeeper } from './run-lease-keeper.js';
import { RunRecords } from './run-records.js';

/** A short lease, so a run nobody renews is taken over within the test. */
const LEASE_MS = 300;

describe('RunLeaseKeeper', () => {
  it('renews a reserved run before it starts: another process cannot take it over meanwhile', async () => {
    // A lease long enough that a renewal every third of it survives a busy machine's timer delays.
    const records = new RunRecords(new InMemoryRunStore(), 1_000);
    const here = new RunLeaseKeeper(records);
    const elsewhere = new RunLeaseKeeper(records);
    try {
      expect(await here.reserve('r1', 'c1')).toBeUndefined();
      expect(here.size).toBe(1);
      // Past the lease (a run nobody renews is taken over) but within the two leases a reservation is held.
      await sleep(1_600);
      expect(await elsewhere.reserve('r1', 'c1')).toMatchObject({ status: 'running' });
    } finally {
      here.stop();
      elsewhere.stop();
    }
  });

  it('a reservation nobody renews runs out: the next caller takes the run over', async () => {
    const records = new RunRecords(new InMemoryRunStore(), LEASE_MS);
    const elsewhere = new RunLeaseKeeper(records);
    try {
      // Reserved by a process that died before holding it (no keeper renews it).
      expect(await records.reserve('r1', 'c1', 'dead-owner')).toBeUndefined();
      await sleep(2 * LEASE_MS);
      expect(await elsewhere.reserve('r1', 'c1')).toBeUndefined();
    } finally {
      elsewhere.stop();
    }
  });

  it('running the reserved run takes its hold over: once it is released, nothing is held', async () => {
    const records = new RunRecords(new InMemoryRunStore(), LEASE_MS);
    const keeper = new RunLeaseKeeper(records);
    await keeper.reserve('r1', 'c1');
    const release = keeper.hold('r1');
    expect(keeper.size).toBe(1);
    release();
    expect(keeper.size).toBe(0);
    // And a reservation is let go at shutdown.
    await keeper.reserve('r2', 'c1');
    keeper.stop();
    expect(keeper.size).toBe(0);
  });

  it('lets go of a reservation never started after two leases: the run can then be taken over', async () => {
    const records = new RunRecords(new InMemoryRunStore(), LEASE_MS);
    const here = new RunLeaseKeeper(records);
    const elsewhere = new RunLeaseKeeper(records);
    try {
      expect(await here.reserve('r1', 'c1')).toBeUndefined();
      await sleep(2 * LEASE_MS + 50);
      expect(here.size).toBe(0);
      await sleep(2 * LEASE_MS);
      expect(await elsewhere.reserve('r1', 'c1')).toBeUndefined();
    } finally {
      here.stop();
      elsewhere.stop();
    }
  });

  it('stops renewing once every held run is gone', async () => {
    const store = new InMemoryRunStore();
    const records = new RunRecords(store, LEASE_MS);
    const keeper = new RunLeaseKeeper(records);
    await keeper.reserve('r1', 'c1');
    const renew = jest.spyOn(records, 'renew').mockResolvedValue('gone');
    try {
      await sleep(LEASE_MS);
      expect(keeper.size).toBe(0);
      const calls = renew.mock.calls.length;
      expect(calls).toBeGreaterThan(0);
      await sleep(LEASE_MS);
      expect(renew.mock.calls.length).toBe(calls);
    } finally {
      keeper.stop();
    }
  });
});
