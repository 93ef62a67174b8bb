/** Lets something happen at most once per window (a log line a caller or an outage could flood). */
export class RateLimit {
  private last = -Infinity;
  /** How many times it was refused since it last happened. */
  suppressed = 0;

  constructor(private readonly windowMs: number) {}

  /** True if it may happen now (and counts it as happening); false otherwise. */
  due(now = Date.now()): boolean {
    if (now - this.last < this.windowMs) {
      this.suppressed += 1;
      return false;
    }
    this.last = now;
    this.suppressed = 0;
    return true;
  }
}
