import assert from 'node:assert/strict';
import type { ConformanceHooks, ConformanceMatchers } from './conformance-hooks.js';

/**
 * The `node:test` functions a conformance suite needs: pass the module itself
 * (`import * as test from 'node:test'`). Its `it` and `after` take a timeout as an option, not as
 * a positional argument.
 */
export interface NodeTestFunctions {
  describe(name: string, fn: () => void): unknown;
  it(name: string, options: { timeout?: number }, fn: () => Promise<void>): unknown;
  after(fn: () => Promise<void>, options?: { timeout?: number }): unknown;
}

/**
 * Conformance hooks for `node:test`: its `describe`, its `it` and `after` with the suite's timeouts
 * passed as `{ timeout }` (a positional timeout would be ignored there), and an `expect` on
 * `node:assert/strict` with the few matchers the suites use (`toEqual` ignores properties that are
 * `undefined`, as Jest's and Vitest's do).
 *
 * @example
 * import * as test from 'node:test';
 * runChatMemoryStoreConformance('mine', openStore, nodeTestHooks(test), capabilities);
 */
export function nodeTestHooks(test: NodeTestFunctions): ConformanceHooks {
  const options = (timeoutMs?: number) => (timeoutMs === undefined ? {} : { timeout: timeoutMs });
  return {
    describe: (name, body) => test.describe(name, body),
    it: (name, body, timeoutMs) => test.it(name, options(timeoutMs), body),
    afterAll: (body, timeoutMs) => test.after(body, options(timeoutMs)),
    expect: assertExpect,
  };
}

/** `expect(actual)` on `node:assert/strict`. */
export function assertExpect(actual: unknown): ConformanceMatchers {
  const matchers = positive(actual);
  const not = Object.fromEntries(
    Object.entries(matchers).map(([name, matcher]) => [
      name,
      (...args: unknown[]) => {
        let passed = true;
        try {
          (matcher as (...args: unknown[]) => void)(...args);
        } catch {
          passed = false;
        }
        if (passed)
          throw new assert.AssertionError({
            message: `expected not ${name}(${args.map((arg) => inspectValue(arg)).join(', ')}), got ${inspectValue(actual)}`,
            actual,
            operator: `not.${name}`,
          });
      },
    ]),
  ) as unknown as Omit<ConformanceMatchers, 'not'>;
  return { ...matchers, not };
}

function positive(actual: unknown): Omit<ConformanceMatchers, 'not'> {
  return {
    toBe: (expected) => assert.ok(Object.is(actual, expected), mismatch('toBe', actual, expected)),
    toEqual: (expected) =>
      assert.deepStrictEqual(withoutUndefined(actual), withoutUndefined(expected)),
    toBeInstanceOf: (expected) =>
      assert.ok(actual instanceof expected, mismatch('toBeInstanceOf', actual, expected.name)),
    toHaveLength: (expected) =>
      assert.equal((actual as { length?: unknown } | null | undefined)?.length, expected),
    toBeGreaterThan: (expected) =>
      assert.ok((actual as number) > expected, mismatch('toBeGreaterThan', actual, expected)),
    toBeNull: () => assert.equal(actual, null),
    toBeUndefined: () => assert.equal(actual, undefined),
    toMatchObject: (expected) =>
      assert.deepStrictEqual(subsetOf(actual, expected), withoutUndefined(expected)),
  };
}

/** Plain objects and arrays with the `undefined`-valued properties dropped, recursively. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [key, withoutUndefined(item)]),
  );
}

/** The part of `actual` that `expected` names (recursively), for a `toMatchObject` comparison. */
function subsetOf(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual))
    return actual.length === expected.length
      ? actual.map((item, i) => subsetOf(item, expected[i]))
      : actual;
  if (!isPlainObject(expected) || !isPlainObject(actual)) return withoutUndefined(actual);
  return Object.fromEntries(
    Object.keys(expected)
      .filter((key) => expected[key] !== undefined || actual[key] !== undefined)
      .map((key) => [key, subsetOf(actual[key], expected[key])]),
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object') return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

function mismatch(matcher: string, actual: unknown, expected: unknown): string {
  return `expected ${inspectValue(actual)} ${matcher} ${inspectValue(expected)}`;
}

function inspectValue(value: unknown): string {
  try {
    return typeof value === 'string'
      ? JSON.stringify(value)
      : String(JSON.stringify(value) ?? value);
  } catch {
    return String(value);
  }
}
