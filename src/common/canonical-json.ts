/**
 * Canonical JSON text: object keys sorted (by code point) at every level, no insignificant
 * whitespace. The same value always gives the same bytes, whatever order its keys were built in.
 *
 * @throws TypeError for what JSON cannot hold: `undefined` at the top, functions, symbols, bigints,
 * non-finite numbers, cycles.
 */
export function canonicalJson(value: unknown): string {
  return write(value, new Set());
}

function write(value: unknown, ancestors: Set<object>): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${value} is not representable in JSON`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new TypeError(`a ${typeof value} is not representable in JSON`);
  }
  const object = value as object;
  if (ancestors.has(object)) throw new TypeError('a cyclic value is not representable in JSON');
  ancestors.add(object);
  try {
    if (Array.isArray(object))
      return `[${object.map((item) => (item === undefined ? 'null' : write(item, ancestors))).join(',')}]`;
    const json = (object as { toJSON?: () => unknown }).toJSON;
    if (typeof json === 'function') return write(json.call(object), ancestors);
    const entries = Object.entries(object)
      .filter(
        ([, item]) => item !== undefined && typeof item !== 'function' && typeof item !== 'symbol',
      )
      .sort(([a], [b]) => compareCodePoints(a, b));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${write(item, ancestors)}`).join(',')}}`;
  } finally {
    ancestors.delete(object);
  }
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
