import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { canonicalJson, compareCodePoints } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every level and drops whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}',
    );
    expect(canonicalJson({ b: undefined, a: 1 })).toBe('{"a":1}');
  });

  it('gives the same text whatever the key order, and round-trips through JSON.parse', () =>
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const text = canonicalJson(value);
        expect(canonicalJson(JSON.parse(text))).toBe(text);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    ));

  it('rejects what JSON cannot hold', () => {
    for (const bad of [Number.NaN, Infinity, 10n, () => 1, Symbol('s')])
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
