import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EntityLeases } from '../../formation/entity-leases.js';
import type { RunStore } from './run-store.interface.js';

/** The run store's entry list of leases (name → holder and expiry). `#` keeps it apart from runs. */
export const LEASES = '#q:leases';

/** Why a lease could not be had: another process held it for longer than the wait. */
export class LeaseWaitTimeoutError extends Error {
  override readonly name = 'LeaseWaitTimeoutError';
  constructor(name: string, waitedMs: number) {
    super(`Lease ${name} was held elsewhere for ${waitedMs} ms; try again later`);
  }
}

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
 * compare-and-set to an expired value. A process that dies holding one loses it after `leaseMs`;
 * one that cannot renew for a whole `leaseMs` (a store outage) may lose it to another (logged).
 * A lease held elsewhere is waited for (polling, at most `maxWaitMs`, then
 * {@link LeaseWaitTimeoutError}). Entries expire with the run store's retention.
 */
export class RunStoreLeases implements EntityLeases {
  private readonly logger = new Logger('Agent');

  constructor(
    private readonly store: RunStore,
    private readonly leaseMs: number,
    private readonly maxWaitMs = Math.max(60_000, 6 * leaseMs),
  ) {}

  async hold<T>(name: string, work: () => Promise<T>): Promise<T> {
    let held = await this.acquire(name);
    let renewing = Promise.resolve();
    const renew = async () => {
      const next = this.value(held.token);
      if (await this.store.replaceIf(LEASES, name, held.json, next)) held = { ...held, json: next };
      else this.logger.warn(`Lease ${name} was lost while held (not renewed within its lease)`);
    };
    const timer = setInterval(() => {
      renewing = renewing.then(renew).catch((error: Error) => {
        this.logger.warn(`Lease ${name} not renewed: ${error.message}`);
      });
    }, this.leaseMs / 3).unref();
    try {
      return await work();
    } finally {
      clearInterval(timer);
      await renewing;
      const released = JSON.stringify({ token: '', until: 0 } satisfies Held);
      await this.store.replaceIf(LEASES, name, held.json, released).catch((error: Error) => {
        this.logger.warn(`Lease ${name} not let go of (it expires): ${error.message}`);
      });
    }
  }

  private async acquire(name: string): Promise<{ token: string; json: string }> {
    const token = randomUUID();
    const started = Date.now();
    for (let poll = FIRST_POLL_MS; ; poll = Math.min(MAX_POLL_MS, poll * 2)) {
      const mine = this.value(token);
      const stored = await this.store.putIfAbsent(LEASES, name, mine);
      if (stored === mine) return { token, json: mine };
      if (expired(stored) && (await this.store.replaceIf(LEASES, name, stored, mine)))
        return { token, json: mine };
      const waited = Date.now() - started;
      if (waited >= this.maxWaitMs) throw new LeaseWaitTimeoutError(name, waited);
      await sleep(poll / 2 + Math.random() * poll);
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
