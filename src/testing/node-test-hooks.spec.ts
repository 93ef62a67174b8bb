import { describe, expect, it } from '@jest/globals';
import { assertExpect, nodeTestHooks } from './node-test-hooks.js';

describe('nodeTestHooks', () => {
  it('passes the suite’s timeouts to node:test as options, not positionally', async () => {
    const calls: unknown[][] = [];
    const hooks = nodeTestHooks({
      describe: (name, fn) => calls.push(['describe', name, typeof fn]),
      it: (name, options, fn) => calls.push(['it', name, options, typeof fn]),
      after: (fn, options) => calls.push(['after', options, typeof fn]),
    });
    hooks.describe('suite', () => undefined);
    hooks.it('slow', async () => undefined, 120_000);
    hooks.it('fast', async () => undefined);
    hooks.afterAll!(async () => undefined, 30_000);
    expect(calls).toEqual([
      ['describe', 'suite', 'function'],
      ['it', 'slow', { timeout: 120_000 }, 'function'],
      ['it', 'fast', {}, 'function'],
      ['after', { timeout: 30_000 }, 'function'],
    ]);
  });
});

describe('assertExpect (the expect of nodeTestHooks)', () => {
  const fails = (check: () => void) => expect(check).toThrow();

  it('passes what Jest’s expect passes', () => {
    assertExpect(1).toBe(1);
    assertExpect(NaN).toBe(NaN);
    assertExpect({ a: 1, b: undefined, c: [{ d: undefined, e: 2 }] }).toEqual({
      a: 1,
      c: [{ e: 2 }],
    });
    assertExpect(new RangeError('x')).toBeInstanceOf(Error);
    assertExpect([1, 2]).toHaveLength(2);
    assertExpect(3).toBeGreaterThan(2);
    assertExpect(null).toBeNull();
    assertExpect(undefined).toBeUndefined();
    assertExpect({ a: 1, b: { c: 2, d: 3 }, e: [{ f: 1, g: 2 }] }).toMatchObject({
      b: { c: 2 },
      e: [{ f: 1 }],
    });
    assertExpect(1).not.toBe(2);
    assertExpect(null).not.toBeUndefined();
    // Classes do not matter, as in Jest: a store's entity equals a plain object.
    class Row {
      constructor(
        readonly key: string,
        readonly value: unknown,
      ) {}
    }
    assertExpect(new Row('k', 1)).toEqual({ key: 'k', value: 1 });
    assertExpect([new Row('k', { a: 1 })]).toMatchObject([{ value: { a: 1 } }]);
    assertExpect({ a: 1, b: undefined }).toMatchObject({ b: undefined });
    assertExpect(new Date(5)).toEqual(new Date(5));
  });

  it('fails what Jest’s expect fails', () => {
    fails(() => assertExpect({}).toBe({}));
    fails(() => assertExpect({ a: 1 }).toEqual({ a: 2 }));
    fails(() => assertExpect({ a: 1, b: 2 }).toEqual({ a: 1 }));
    fails(() => assertExpect('x').toBeInstanceOf(Error));
    fails(() => assertExpect([1]).toHaveLength(2));
    fails(() => assertExpect(2).toBeGreaterThan(2));
    fails(() => assertExpect(undefined).toBeNull());
    fails(() => assertExpect(null).toBeUndefined());
    fails(() => assertExpect({ a: 1 }).toMatchObject({ a: 1, b: 2 }));
    fails(() => assertExpect({ e: [{ f: 1 }, { f: 2 }] }).toMatchObject({ e: [{ f: 1 }] }));
    fails(() => assertExpect(1).not.toBe(1));
    // A key the value lacks fails toMatchObject, even when expected undefined.
    fails(() => assertExpect({ a: 1 }).toMatchObject({ b: undefined }));
    fails(() => assertExpect(new Date(5)).toEqual(new Date(6)));
  });
});
