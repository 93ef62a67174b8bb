/**
 * Canonical JSON text: object keys sorted (by code point) at every level, no insignificant
 * whitespace. The same value always gives the same bytes, whatever order its keys were built in.
 *
 * @throws TypeError for what JSON cannot hold: `undefined` at the top, functions, symbols, bigints,
 * non-finite numbers, cycles.
 */
export function canonicalJson(value: unknown): string {
  // Native JSON.stringify does the writing (it is several times faster than a hand-written walk);
  // the replacer only hands it each object with its keys in order, and refuses non-finite numbers.
  const text = JSON.stringify(value, sortKeys);
  if (text === undefined) throw new TypeError(`a ${typeof value} is not representable in JSON`);
  return text;
}

function sortKeys(this: unknown, _key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new TypeError(`${value} is not representable in JSON`);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  if (isSorted(keys)) return value;
  const ordered: Record<string, unknown> = {};
  for (const key of keys.some(hasSurrogate) ? keys.sort(compareCodePoints) : keys.sort()) {
    ordered[key] = (value as Record<string, unknown>)[key];
  }
  return ordered;
}

function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i += 1)
    if (compareCodePoints(keys[i - 1]!, keys[i]!) >= 0) return false;
  return true;
}

/** Without surrogates, UTF-16 order (the native sort) is code-point order. */
function hasSurrogate(text: string): boolean {
  return /[\uD800-\uDFFF]/.test(text);
}

/**
 * Compares strings by Unicode code point (not UTF-16 code unit, as `<` and the default sort do):
 * U+FFFF sorts before U+10000. This is UTF-8 byte order, the order of binary SQL columns.
 */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Surrogates (0xD800–0xDFFF) stand for code points above 0xFFFF: they sort after 0xE000–0xFFFF.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
