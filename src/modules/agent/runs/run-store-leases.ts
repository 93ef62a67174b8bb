import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type EntityLease,
  type EntityLeases,
  LeaseLostError,
  LeaseWaitTimeoutError,
} from '../../formation/entity-leases.js';
import type { RunStore } from './run-store.interface.js';

/**
 * The run store's entry of a lease: each lease its own pseudo-run (`#q:lease:<name>`), so on Redis
 * each is its own key (its own expiry, spread over a cluster's slots). `#` keeps them apart from
 * every run id.
 */
export const leaseRunId = (name: string): string => `#q:lease:${name}`;
const ENTRY = 'holder';

interface Held {
  token: string;
  until: number;
}

/** First wait between tries for a held lease; each later one doubles, up to 250 ms. */
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 250;

/**
 * {@link EntityLeases} on a run store the app's processes share: a lease is an entry holding its
 * holder's token and expiry, taken with `putIfAbsent` when free and with a compare-and-set once
 * it expired, renewed every third of `leaseMs` while held (compare-and-set), and let go of by a
 * compare-and-set to an expired value (the entry itself goes with the run store's retention). A
 * process that dies holding one loses it after `leaseMs`; one that cannot renew for a whole
 * `leaseMs` (a store outage, a stalled event loop) may lose it to another: `assertHeld` then
 * throws {@link LeaseLostError}, so its work can stop before it writes. Expiry compares the
 * processes' clocks: keep them within a small part of `leaseMs`. A lease held elsewhere is waited
 * for (polling, at most `maxWaitMs`, then {@link LeaseWaitTimeoutError}; `signal` ends the wait).
 */
export class RunStoreLeases implements EntityLeases {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly store: RunStore,
    private readonly leaseMs: number,
    private readonly maxWaitMs = Math.max(60_000, 6 * leaseMs),
  ) {}

  async hold<T>(
    name: string,
    work: (lease: EntityLease) => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    const runId = leaseRunId(name);
    const token = randomUUID();
    let json = await this.acquire(runId, name, token, signal);
    let lost = false;
    let renewing = Promise.resolve();
    const renew = async () => {
      if (lost) return;
      const next = this.value(token);
      if (await this.store.replaceIf(runId, ENTRY, json, next)) json = next;
      else {
        lost = true;
        this.logger.warn(`Lease ${name} was lost while held (not renewed within its lease)`);
      }
    };
    const timer = setInterval(() => {
      renewing = renewing.then(renew).catch((error: Error) => {
        this.logger.warn(`Lease ${name} not renewed: ${error.message}`);
      });
    }, this.leaseMs / 3).unref();
    const lease: EntityLease = {
      assertHeld: async () => {
        const now = renewing.then(renew);
        // A renewal that fails is this call's error, not every later renewal's.
        renewing = now.catch(() => undefined);
        await now;
        if (lost) throw new LeaseLostError(name);
      },
    };
    try {
      return await work(lease);
    } finally {
      clearInterval(timer);
      await renewing.catch(() => undefined);
      if (!lost) {
        const released = JSON.stringify({ token: '', until: 0 } satisfies Held);
        await this.store.replaceIf(runId, ENTRY, json, released).catch((error: Error) => {
          this.logger.warn(`Lease ${name} not let go of (it expires): ${error.message}`);
        });
      }
    }
  }

  private async acquire(
    runId: string,
    name: string,
    token: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const started = Date.now();
    for (let poll = FIRST_POLL_MS; ; poll = Math.min(MAX_POLL_MS, poll * 2)) {
      signal?.throwIfAborted();
      const mine = this.value(token);
      const stored = await this.store.putIfAbsent(runId, ENTRY, mine);
      if (stored === mine) return mine;
      if (expired(stored) && (await this.store.replaceIf(runId, ENTRY, stored, mine))) return mine;
      const waited = Date.now() - started;
      if (waited >= this.maxWaitMs) throw new LeaseWaitTimeoutError(name, waited);
      await sleep(poll / 2 + Math.random() * poll, undefined, signal ? { signal } : undefined);
    }
  }

  private value(token: string): string {
    return JSON.stringify({ token, until: Date.now() + this.leaseMs } satisfies Held);
  }
}

/** Whether a stored lease has expired (or is not a lease at all). */
function expired(json: string): boolean {
  try {
    const held = JSON.parse(json) as Partial<Held>;
    return !(typeof held.until === 'number' && held.until > Date.now());
  } catch {
    return true;
  }
}
