import { type BeforeApplicationShutdown, Injectable } from '@nestjs/common';

/**
 * The turns the routes are running, whether or not their client is still there (a streamed turn
 * whose client left goes on to its commit). The application's shutdown waits for them before the
 * stores close (bound it with your own shutdown timeout), so none is cut off half-way.
 */
@Injectable()
export class TurnsInFlight implements BeforeApplicationShutdown {
  private readonly running = new Set<Promise<unknown>>();

  /** Runs `work`, counted until it settles. */
  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const forget = () => this.running.delete(work);
    work.then(forget, forget);
    return work;
  }

  async beforeApplicationShutdown(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }
}
