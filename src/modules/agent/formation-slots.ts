import type { Logger } from '@nestjs/common';

/**
 * The slots formation jobs run in, in one process: at most `concurrency` at once, at most
 * `perTenant` of one tenant. A freed slot goes to the tenant whose turn it is (round robin between
 * the tenants waiting, arrival order within one), so a tenant with a thousand jobs waiting does not
 * hold back another's next job by more than one job's time, whatever the order they came in.
 */
export class FormationSlots {
  private running = 0;
  private readonly runningOf = new Map<string, number>();
  /** The waiting jobs of each tenant; the map's order is the order tenants get a slot. */
  private readonly waiting = new Map<string, Array<(granted: boolean) => void>>();

  constructor(
    private readonly concurrency: number,
    private readonly perTenant: number,
  ) {}

  /** Resolves `true` once a slot of the tenant is held, `false` when `close` woke it (no slot). */
  acquire(tenant: string): Promise<boolean> {
    if (!this.waiting.has(tenant) && this.hasRoomFor(tenant)) {
      this.take(tenant);
      return Promise.resolve(true);
    }
    return new Promise((resolve) => {
      const queue = this.waiting.get(tenant);
      if (queue) queue.push(resolve);
      else this.waiting.set(tenant, [resolve]);
    });
  }

  /** Frees a slot `acquire` gave the tenant, and hands it on. */
  release(tenant: string): void {
    this.running -= 1;
    const held = (this.runningOf.get(tenant) ?? 1) - 1;
    if (held > 0) this.runningOf.set(tenant, held);
    else this.runningOf.delete(tenant);
    this.handOn();
  }

  /** Wakes every waiting job with `false` (at shutdown): none of them runs. */
  close(): void {
    const queues = [...this.waiting.values()];
    this.waiting.clear();
    for (const wake of queues.flat()) wake(false);
  }

  /** Jobs running now (tests, metrics). */
  get size(): number {
    return this.running;
  }

  private handOn(): void {
    // A tenant served goes to the back of the order; one at its own limit keeps its place.
    for (const [tenant, queue] of this.waiting) {
      if (this.running >= this.concurrency) return;
      if (!this.hasRoomFor(tenant)) continue;
      const next = queue.shift()!;
      this.waiting.delete(tenant);
      if (queue.length > 0) this.waiting.set(tenant, queue);
      this.take(tenant);
      next(true);
    }
  }

  private hasRoomFor(tenant: string): boolean {
    return this.running < this.concurrency && (this.runningOf.get(tenant) ?? 0) < this.perTenant;
  }

  private take(tenant: string): void {
    this.running += 1;
    this.runningOf.set(tenant, (this.runningOf.get(tenant) ?? 0) + 1);
  }
}

/**
 * An entity's tenant by the app's `ownerOf`; `''` (logged) when it throws or gives no string.
 */
export function tenantOfEntity(
  ownerOf: (entityId: string) => string,
  entityId: string,
  logger: Pick<Logger, 'warn'>,
): string {
  try {
    const tenant = ownerOf(entityId);
    if (typeof tenant === 'string') return tenant;
    throw new Error(`it returned ${typeof tenant}, not a string`);
  } catch (error) {
    logger.warn(`formation.tenants.ownerOf failed: ${(error as Error).message}`);
    return '';
  }
}
