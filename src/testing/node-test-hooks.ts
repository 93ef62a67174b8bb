import assert from 'node:assert/strict';
import type { ConformanceHooks, ConformanceMatchers } from './conformance-hooks.js';

/**
 * The `node:test` functions a conformance suite needs: pass the module itself
 * (`import * as test from 'node:test'`). Its `it` and `after` take a timeout as an option, not as
 * a positional argument.
 */
export interface NodeTestFunctions {
  /** `node:test`'s `describe`. */
  describe(name: string, fn: () => void): unknown;
  /** `node:test`'s `it`, whose timeout is an option. */
  it(name: string, options: { timeout?: number }, fn: () => Promise<void>): unknown;
  /** `node:test`'s `after`, whose timeout is an option. */
  after(fn: () => Promise<void>, options?: { timeout?: number }): unknown;
}

/**
 * Conformance hooks for `node:test`: its `describe`, its `it` and `after` with the suite's timeouts
 * passed as `{ timeout }` (a positional timeout would be ignored there), and an `expect` on
 * `node:assert/strict` with the few matchers the suites use, with Jest's semantics (`toEqual` and
 * `toMatchObject` ignore `undefined` properties and object classes; `toMatchObject` fails on a key
 * the value lacks).
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
    toEqual: (expected) => assert.deepStrictEqual(normalized(actual), normalized(expected)),
    toBeInstanceOf: (expected) =>
      assert.ok(actual instanceof expected, mismatch('toBeInstanceOf', actual, expected.name)),
    toHaveLength: (expected) =>
      assert.equal((actual as { length?: unknown } | null | undefined)?.length, expected),
    toBeGreaterThan: (expected) =>
      assert.ok((actual as number) > expected, mismatch('toBeGreaterThan', actual, expected)),
    toBeCloseTo: (expected, digits = 2) =>
      assert.ok(
        Math.abs((actual as number) - expected) < 10 ** -digits / 2,
        mismatch('toBeCloseTo', actual, expected),
      ),
    toBeNull: () => assert.equal(actual, null),
    toBeUndefined: () => assert.equal(actual, undefined),
    toMatchObject: (expected) =>
      assert.deepStrictEqual(subsetOf(actual, expected), expectedShape(expected)),
  };
}

/** Stands for a key `toMatchObject` expects and the value lacks (never equal to a value). */
const MISSING = Symbol('missing');

/**
 * A value as Jest's `toEqual` compares it: objects by their own enumerable properties whatever
 * their class (a store's class instances equal plain objects), `undefined` properties dropped,
 * recursively; dates, regular expressions, errors, maps, sets and binary data as they are.
 */
function normalized(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalized);
  if (!isRecordLike(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => [key, normalized(item)]),
  );
}

/** `expected` of a `toMatchObject`: like {@link normalized}, keeping keys it names `undefined`. */
function expectedShape(expected: unknown): unknown {
  if (Array.isArray(expected)) return expected.map(expectedShape);
  if (!isRecordLike(expected)) return expected;
  return Object.fromEntries(
    Object.entries(expected).map(([key, item]) => [key, expectedShape(item)]),
  );
}

/** The part of `actual` that `expected` names (recursively), for a `toMatchObject` comparison. */
function subsetOf(actual: unknown, expected: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(actual))
    return actual.length === expected.length
      ? actual.map((item, i) => subsetOf(item, expected[i]))
      : normalized(actual);
  if (!isRecordLike(expected) || !isRecordLike(actual)) return normalized(actual);
  return Object.fromEntries(
    Object.keys(expected).map((key) => [
      key,
      key in actual ? subsetOf(actual[key], expected[key]) : MISSING,
    ]),
  );
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

/** An object compared by its properties (not a date, pattern, error, collection or binary). */
function isRecordLike(value: unknown): value is Record<string, unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    !(value instanceof Date) &&
    !(value instanceof RegExp) &&
    !(value instanceof Error) &&
    !(value instanceof Map) &&
    !(value instanceof Set) &&
    !ArrayBuffer.isView(value) &&
    !(value instanceof ArrayBuffer)
  );
}
