import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RunStore } from '../../src/modules/agent/runs/run-store.interface.js';
import { leaseRunId, RunStoreLeases } from '../../src/modules/agent/runs/run-store-leases.js';
import {
  entityLeaseName,
  LeaseLostError,
  LeaseWaitTimeoutError,
} from '../../src/modules/formation/entity-leases.js';
import { sharedRunStores } from '../support/shared-run-stores.js';

/**
 * Long enough that a holder's renewals (every third of it) land in time on a loaded machine: a
 * holder loses its lease (as it must) when its event loop or store stalls for two thirds of it, and
 * 800 ms stalls were seen under heavy load beside the suite (a 1,200 ms lease lost to the waiter).
 */
const LEASE_MS = 2_000;

const backends = sharedRunStores('leases');

/** A lease held by another process until `release` is called. */
async function holdOpen(store: RunStore, lease: string) {
  let release!: () => void;
  let holding!: () => void;
  const inside = new Promise<void>((resolve) => (holding = resolve));
  const held = new RunStoreLeases(store, LEASE_MS).hold(
    lease,
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        holding();
      }),
  );
  // Returns once the lease is held and its work runs (not after a guessed delay: on a busy machine
  // taking the lease can take longer than any fixed one).
  await Promise.race([inside, held]);
  return { release, held };
}

/**
 * Entity leases on a shared run store, each `RunStoreLeases` standing for a process of the app:
 * what formation holds so that two processes never form, or write, one entity's memories at once.
 */
describe.each(backends)('entity leases on the %s run store', (_name, open) => {
  // Names of this test only: a database shared with other test files may hold theirs.
  const name = () => entityLeaseName('job', `ada-${randomUUID()}`);

  it('runs the work of one lease in one process at a time, and of other leases beside it', async () => {
    const store = await open();
    const processes = [0, 1, 2].map(() => new RunStoreLeases(store, LEASE_MS));
    const lease = name();
    let inside = 0;
    let most = 0;
    const done: number[] = [];
    const work = (n: number) => async () => {
      inside += 1;
      most = Math.max(most, inside);
      await sleep(30);
      inside -= 1;
      done.push(n);
    };
    await Promise.all(Array.from({ length: 9 }, (_, n) => processes[n % 3]!.hold(lease, work(n))));
    expect(most).toBe(1);
    expect(done.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    // Another lease is not held back by a held one.
    const { release, held } = await holdOpen(store, lease);
    expect(await processes[1]!.hold(name(), async () => 'beside')).toBe('beside');
    release();
    await held;
  });

  it('keeps a lease its holder renews beyond one lease, and hands it on once let go of', async () => {
    const store = await open();
    const [first, second] = [
      new RunStoreLeases(store, LEASE_MS),
      new RunStoreLeases(store, LEASE_MS),
    ];
    const lease = name();
    const order: string[] = [];
    let entered!: () => void;
    const firstIn = new Promise<void>((resolve) => (entered = resolve));
    const long = first.hold(lease, async () => {
      order.push('first in');
      entered();
      await sleep(LEASE_MS * 2.5);
      order.push('first out');
    });
    await Promise.race([firstIn, long]);
    await second.hold(lease, async () => order.push('second in'));
    await long;
    expect(order).toEqual(['first in', 'first out', 'second in']);
  });

  it('takes over the lease of a process that died holding it, once it expired', async () => {
    const store = await open();
    const lease = name();
    // A dead holder: its lease taken a moment ago, never renewed nor let go of.
    const dead = JSON.stringify({ token: 'dead', until: Date.now() + LEASE_MS });
    await store.put(leaseRunId(lease), 'holder', dead);
    const started = Date.now();
    const took = await new RunStoreLeases(store, LEASE_MS).hold(lease, async () => Date.now());
    expect(took - started).toBeGreaterThanOrEqual(LEASE_MS - 100);
    expect(took - started).toBeLessThan(LEASE_MS + 2_000);
  });

  it('says a lease taken over while its holder stalled is lost, before the holder writes', async () => {
    const store = await open();
    const lease = name();
    const stalled = new RunStoreLeases(store, LEASE_MS);
    const outcome = stalled.hold(lease, async (held) => {
      // Another process takes the lease over as if this one had not renewed it for a lease.
      await store.put(
        leaseRunId(lease),
        'holder',
        JSON.stringify({ token: 'other', until: Date.now() + LEASE_MS }),
      );
      await held.assertHeld();
      return 'wrote';
    });
    await expect(outcome).rejects.toBeInstanceOf(LeaseLostError);
    // The other holder's lease is left as it is (not let go of by the one that lost it).
    expect(JSON.parse((await store.get(leaseRunId(lease), 'holder'))!)).toMatchObject({
      token: 'other',
    });
  });

  it('stops waiting for a held lease when its signal aborts', async () => {
    const store = await open();
    const lease = name();
    const { release, held } = await holdOpen(store, lease);
    const stop = new AbortController();
    const waiting = new RunStoreLeases(store, LEASE_MS).hold(lease, async () => 'ran', stop.signal);
    setTimeout(() => stop.abort(), 100);
    await expect(waiting).rejects.toMatchObject({ name: 'AbortError' });
    release();
    await held;
  });

  it('gives up waiting after maxWaitMs with a LeaseWaitTimeoutError, running nothing', async () => {
    const store = await open();
    const lease = name();
    const { release, held } = await holdOpen(store, lease);
    let ran = false;
    const waiting = new RunStoreLeases(store, LEASE_MS, 300).hold(lease, async () => {
      ran = true;
    });
    await expect(waiting).rejects.toBeInstanceOf(LeaseWaitTimeoutError);
    expect(ran).toBe(false);
    release();
    await held;
  });
});
