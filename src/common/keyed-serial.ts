/**
 * Runs work one at a time per key, in the order it was given (work of other keys runs beside it);
 * a key is forgotten once its last work ended. A work that fails does not stop the ones after it.
 */
export class KeyedSerial {
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `work` once the earlier work of `key` ended; resolves or rejects as it does. */
  run<T>(key: string, work: () => Promise<T>): Promise<T> {
    const next = (this.tails.get(key) ?? Promise.resolve()).then(work);
    const tail = next.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return next;
  }

  /** Resolves once every work given so far has ended. */
  async idle(): Promise<void> {
    await Promise.all([...this.tails.values()]);
  }
}
