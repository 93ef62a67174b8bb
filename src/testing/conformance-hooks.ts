/**
 * The matchers a conformance suite uses. Jest's and Vitest's `expect` satisfy this shape, so a
 * suite imports no test framework: the caller passes its own.
 */
export interface ConformanceMatchers {
  /** Passes if the value is `expected` itself (`Object.is`). */
  toBe(expected: unknown): void;
  /** Passes if the value deeply equals `expected`, ignoring `undefined` properties and classes. */
  toEqual(expected: unknown): void;
  /** Passes if the value is an instance of `expected`. */
  toBeInstanceOf(expected: abstract new (...args: never[]) => unknown): void;
  /** Passes if the value's `length` is `expected`. */
  toHaveLength(expected: number): void;
  /** Passes if the value is greater than `expected`. */
  toBeGreaterThan(expected: number): void;
  /** Passes if the number is within 10^-digits / 2 of `expected` (default 2 digits). */
  toBeCloseTo(expected: number, digits?: number): void;
  /** Passes if the value is `null`. */
  toBeNull(): void;
  /** Passes if the value is `undefined`. */
  toBeUndefined(): void;
  /** Passes if the value has every property of `expected`, recursively, with equal values. */
  toMatchObject(expected: object): void;
  /** The same matchers, negated. */
  readonly not: Omit<ConformanceMatchers, 'not'>;
}

/**
 * The test-framework functions a conformance suite is registered with. Jest's and Vitest's
 * `{ describe, it, expect, afterAll }` fit as they are (both take a timeout as the last argument);
 * for `node:test`, whose timeouts are options, pass `nodeTestHooks(test)`.
 */
export interface ConformanceHooks {
  /** Registers a group of tests; `body` registers them. */
  describe(name: string, body: () => void): unknown;
  /** Registers one test, with its timeout in milliseconds. */
  it(name: string, body: () => Promise<void>, timeoutMs?: number): unknown;
  /** The matchers on `actual`. */
  expect(actual: unknown): ConformanceMatchers;
  /**
   * Optional: registers a body to run after the suite's tests, where the suite cleans up what it
   * wrote and closes the instances it opened (without it, they stay open).
   */
  afterAll?(body: () => Promise<void>, timeoutMs?: number): unknown;
}

/** One instance of a backend under test, with a way to close it. */
export interface InstanceUnderTest<T> {
  /** The instance the suite tests. */
  readonly subject: T;
  /** Closes the instance and releases what it holds; the suite calls it once per instance. */
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
