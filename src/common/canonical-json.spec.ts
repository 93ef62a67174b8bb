import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canonicalJson, compareCodePoints } from './canonical-json.js';

/** Canonical JSON written the slow, obvious way. */
const reference = (value: unknown): string => write(JSON.parse(JSON.stringify(value)));
const write = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(write).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object).sort(compareCodePoints);
  return `{${keys.map((key) => `${JSON.stringify(key)}:${write(object[key])}`).join(',')}}`;
};

describe('canonicalJson', () => {
  it('sorts keys at every level and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });

  it('keeps __proto__, constructor and prototype keys as data, whatever their order', () => {
    for (const text of [
      '{"b":1,"__proto__":{"x":1}}',
      '{"__proto__":{"x":1},"b":1}',
      '{"z":{"constructor":{"prototype":1},"__proto__":[1]},"a":0}',
    ]) {
      const value = JSON.parse(text) as unknown;
      const canonical = canonicalJson(value);
      expect(JSON.parse(canonical)).toEqual(value);
      expect(canonical).toContain('"__proto__"');
    }
    expect(canonicalJson(JSON.parse('{"b":1,"__proto__":{"x":1}}'))).toBe(
      '{"__proto__":{"x":1},"b":1}',
    );
    expect(({} as { x?: unknown }).x).toBeUndefined();
    expect(Object.getPrototypeOf({})).toBe(Object.prototype);
  });

  it('gives the same text whatever the key order, and round-trips through JSON.parse', () =>
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    ));

  it('writes what JSON.stringify writes, keys in code-point order, on either path', () => {
    // Plain data takes the fast path; a Date, a toJSON, undefined, a null prototype or deep
    // nesting sends the value down the replacer path. Both must agree with this reference.
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme' }),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.date({ noInvalidDate: true }),
    );
    const key = fc.oneof(fc.string({ unit: 'grapheme' }), fc.nat(20).map(String));
    fc.assert(
      fc.property(
        fc.object({ key, values: [leaf], withNullPrototype: true, maxDepth: 4 }),
        (value) => {
          const before = JSON.stringify(value);
          expect(canonicalJson(value)).toBe(reference(value));
          expect(JSON.stringify(value)).toBe(before); // the input is never reordered in place
        },
      ),
      { numRuns: 500 },
    );
    const withToJson = { b: { toJSON: () => ({ y: 1, x: 2 }) }, a: [undefined, () => 1] };
    expect(canonicalJson(withToJson)).toBe('{"a":[null,null],"b":{"x":2,"y":1}}');
    let deep: unknown = { b: 1, a: 2 };
    for (let i = 0; i < 100; i += 1) deep = { z: deep, y: [i] };
    expect(canonicalJson(deep)).toBe(reference(deep));
    expect(canonicalJson({ 10: 'ten', 9: 'nine', a: 'a' })).toBe('{"10":"ten","9":"nine","a":"a"}');
  });

  it('orders runs and mixes of values of a few shapes, each as if it came alone', () => {
    // The order of the last out-of-order key list is reused: a value of another shape, of the
    // same keys in another order, or of keys no object can order must not be given it.
    const shapes = [
      ['note', 'tags', 'score'],
      ['tags', 'note', 'score'],
      ['a', 'b'],
      ['b', 'a'],
      ['\uFFFF', '\u{1F600}', 'a'],
      ['b', '1', 'a'],
      ['score', 'note', 'tags'],
      [],
    ];
    const valueOf = (keys: string[], depth: number): unknown => {
      const object: Record<string, unknown> = {};
      keys.forEach((key, i) => (object[key] = depth > 0 ? valueOf(keys.slice(i), depth - 1) : i));
      return object;
    };
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(shapes.length - 1), fc.nat(2)), { maxLength: 30 }),
        (picks) => {
          for (const [shape, depth] of picks) {
            const value = valueOf(shapes[shape]!, depth);
            expect(canonicalJson(value)).toBe(reference(value));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('rejects what JSON cannot hold', () => {
    for (const bad of [Number.NaN, Infinity, 10n, () => 1, Symbol('s'), { a: [1, -Infinity] }])
      expect(() => canonicalJson(bad)).toThrow(TypeError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => canonicalJson(cyclic)).toThrow(/circular/);
  });
});

describe('compareCodePoints', () => {
  it('orders by code point, so characters beyond U+FFFF come after U+FFFF', () => {
    const sorted = ['\u{1F600}', '\uFFFF', 'a', '\u00E9', 'A'].sort(compareCodePoints);
    expect(sorted).toEqual(['A', 'a', '\u00E9', '\uFFFF', '\u{1F600}']);
  });

  it('agrees with UTF-8 byte order', () =>
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const bytes = Buffer.compare(Buffer.from(a), Buffer.from(b));
        expect(Math.sign(compareCodePoints(a, b))).toBe(Math.sign(bytes));
      }),
    ));
});
