import { Injectable } from '@nestjs/common';

/**
 * Counts the requests being served, so a graceful shutdown can let them finish. (Turns whose
 * client has left are awaited by `AgentMemoryHttpModule` itself before the stores close.)
 */
@Injectable()
export class InFlightRequests {
  private count = 0;
  private waiters: Array<() => void> = [];

  /** Express-style middleware: counts a request until its response finishes or closes. */
  readonly middleware = (
    _request: unknown,
    response: { once(event: 'close', listener: () => void): unknown },
    next: () => void,
  ): void => {
    this.count += 1;
    response.once('close', () => {
      this.count -= 1;
      if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
    });
    next();
  };

  /** Resolves once none is in flight, or after `timeoutMs` (then `false`). */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref();
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
