import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { applyMergePatch, patchedPaths } from './merge-patch.js';

describe('applyMergePatch (RFC 7396)', () => {
  // The examples of RFC 7396, appendix A.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('%j patched with %j is %j', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  const json = fc.jsonValue({ maxDepth: 3 });

  it('changes neither input, and applying a patch twice is applying it once', () => {
    fc.assert(
      fc.property(json, json, (target, patch) => {
        const [before, patchBefore] = [structuredClone(target), structuredClone(patch)];
        const once = applyMergePatch(target, patch);
        expect(target).toEqual(before);
        expect(patch).toEqual(patchBefore);
        expect(applyMergePatch(once, patch)).toEqual(once);
      }),
    );
  });

  it('keeps every member the patch does not name', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), json),
        fc.dictionary(fc.string(), json),
        (target, patch) => {
          const merged = applyMergePatch(target, patch) as Record<string, unknown>;
          for (const key of Object.keys(target))
            if (!Object.hasOwn(patch, key)) expect(merged[key]).toEqual(target[key]);
        },
      ),
    );
  });

  it('keeps a member named __proto__ a member, never the prototype', () => {
    const merged = applyMergePatch({}, JSON.parse('{"__proto__": {"polluted": true}}')) as object;
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(JSON.stringify(merged)).toBe('{"__proto__":{"polluted":true}}');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('names the members a patch changes', () => {
    expect(patchedPaths({ name: 'Ada', address: { city: 'Rome', zip: null } })).toEqual([
      'name',
      'address.city',
      'address.zip',
    ]);
  });
});
