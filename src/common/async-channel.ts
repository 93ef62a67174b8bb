/**
 * A one-producer, one-consumer queue that is also an async iterable: the producer pushes values,
 * then closes or fails it; the consumer iterates. Values pushed while nobody is waiting are kept.
 */
export class AsyncChannel<T> implements AsyncIterable<T> {
  private readonly buffered: T[] = [];
  private waiting?: {
    resolve: (result: IteratorResult<T>) => void;
    reject: (error: unknown) => void;
  };
  private ended = false;
  private failure?: { error: unknown };

  push(value: T): void {
    if (this.ended) return;
    if (this.waiting) {
      const { resolve } = this.waiting;
      this.waiting = undefined;
      resolve({ value, done: false });
    } else {
      this.buffered.push(value);
    }
  }

  close(): void {
    this.end();
  }

  fail(error: unknown): void {
    this.failure = { error };
    this.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.buffered.length > 0)
          return Promise.resolve({ value: this.buffered.shift()!, done: false });
        if (this.failure) return Promise.reject(this.failure.error);
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
      },
      return: () => {
        this.ended = true;
        this.buffered.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = undefined;
    if (!waiting) return;
    if (this.failure) waiting.reject(this.failure.error);
    else waiting.resolve({ value: undefined, done: true });
  }
}

/**
 * Runs `work`, which reports events through `emit`, as an async iterable: its events as they
 * happen, then `last(result)`, or its failure. Leaving the iteration early does not stop the work.
 */
export function streamOf<Event, Result>(
  work: (emit: (event: Event) => void) => Promise<Result>,
  last: (result: Result) => Event,
): AsyncIterable<Event> {
  const channel = new AsyncChannel<Event>();
  work((event) => channel.push(event)).then(
    (result) => {
      channel.push(last(result));
      channel.close();
    },
    (error: unknown) => channel.fail(error),
  );
  return channel;
}
