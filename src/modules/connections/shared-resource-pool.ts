import type { ConnectionLease } from './connection-lease.js';

interface PoolEntry<T> {
  refs: number;
  readonly opened: Promise<T>;
  readonly close: (resource: T) => Promise<void>;
}

/**
 * Reference-counted resources by key: the first `acquire` of a key opens the resource, later ones
 * share it, and the last `release` closes it. A failed open is forgotten, so the next acquire
 * tries again.
 */
export class SharedResourcePool<T> {
  private readonly entries = new Map<string, PoolEntry<T>>();

  /** Opens (or shares) the resource of `key`. */
  async acquire(
    key: string,
    open: () => Promise<T>,
    close: (resource: T) => Promise<void>,
  ): Promise<ConnectionLease<T>> {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { refs: 0, opened: open(), close };
      this.entries.set(key, entry);
    }
    entry.refs += 1;
    const current = entry;
    let connection: T;
    try {
      connection = await current.opened;
    } catch (error) {
      current.refs -= 1;
      if (this.entries.get(key) === current) this.entries.delete(key);
      throw error;
    }
    let released = false;
    return {
      value: connection,
      release: async () => {
        if (released) return;
        released = true;
        current.refs -= 1;
        if (current.refs > 0 || this.entries.get(key) !== current) return;
        this.entries.delete(key);
        await current.close(connection);
      },
    };
  }

  /** Closes every resource still open, whoever holds it. */
  async closeAll(): Promise<void> {
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.allSettled(entries.map(async (entry) => entry.close(await entry.opened)));
  }

  /** Every resource that opened successfully, with its key (for health checks). */
  async openResources(): Promise<Array<{ key: string; resource: T }>> {
    const settled = await Promise.allSettled(
      [...this.entries].map(async ([key, entry]) => ({ key, resource: await entry.opened })),
    );
    return settled.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  }

  /** How many resources are open (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}
