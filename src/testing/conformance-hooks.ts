/**
 * The matchers a conformance suite uses. Jest's and Vitest's `expect` satisfy this shape, so a
 * suite imports no test framework: the caller passes its own.
 */
export interface ConformanceMatchers {
  toBe(expected: unknown): void;
  toEqual(expected: unknown): void;
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): void;
  toHaveLength(expected: number): void;
  toBeGreaterThan(expected: number): void;
  toBeNull(): void;
  toBeUndefined(): void;
  toMatchObject(expected: object): void;
  readonly not: Omit<ConformanceMatchers, 'not'>;
}

/**
 * The test-framework functions a conformance suite is registered with. Jest's and Vitest's
 * `{ describe, it, expect, afterAll }` fit as they are (both take a timeout as the last argument);
 * for `node:test`, whose timeouts are options, pass `nodeTestHooks(test)`.
 */
export interface ConformanceHooks {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
  expect(actual: unknown): ConformanceMatchers;
  afterAll?(body: () => Promise<void>, timeoutMs?: number): unknown;
}

/** One instance of a backend under test, with a way to close it. */
export interface InstanceUnderTest<T> {
  readonly subject: T;
  close(): Promise<void>;
}

/**
 * Awaits a promise that must reject and returns its error (a plain `expect(...).rejects` is easy to
 * forget to await; this cannot be).
 */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject, but it resolved');
}
