/**
 * Canonical JSON text: object keys sorted (by code point) at every level, no insignificant
 * whitespace. The same value always gives the same bytes, whatever order its keys were built in.
 *
 * @throws TypeError for what JSON cannot hold: `undefined` at the top, functions, symbols, bigints,
 * non-finite numbers, cycles.
 */
export function canonicalJson(value: unknown): string {
  // Fast path: native JSON.stringify (several times faster than a hand-written writer) on plain
  // data put in order by a quick walk that copies only the objects whose keys are out of order.
  const ordered = orderPlainData(value, 0);
  if (ordered !== NOT_PLAIN) return JSON.stringify(ordered);
  // Anything else (toJSON, class instances, undefined, deep nesting, integer-like keys that a JS
  // object would re-order): JSON.stringify resolves it to plain data (refusing non-finite numbers
  // and cycles), then a hand-written writer puts out the keys in code-point order.
  const text = JSON.stringify(value, refuseNonFinite);
  if (text === undefined) throw new TypeError(`a ${typeof value} is not representable in JSON`);
  return writeSorted(JSON.parse(text));
}

/** Deeper values take the slow path, where JSON.stringify reports cycles. */
const MAX_PLAIN_DEPTH = 64;
const NOT_PLAIN = Symbol('not plain data');

/**
 * Plain data (strings, booleans, null, finite numbers, arrays, plain objects without `toJSON`)
 * with every object's keys in code-point order: the value itself when it already is, else a copy.
 * {@link NOT_PLAIN} for anything else, which the slow path handles.
 */
function orderPlainData(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? value : NOT_PLAIN;
    case 'object': {
      if (value === null) return value;
      if (depth >= MAX_PLAIN_DEPTH) return NOT_PLAIN;
      const prototype = Object.getPrototypeOf(value) as unknown;
      if (prototype === Array.prototype) return orderArray(value as unknown[], depth);
      if ((prototype !== Object.prototype && prototype !== null) || 'toJSON' in value)
        return NOT_PLAIN;
      return orderObject(value as Record<string, unknown>, depth);
    }
    default:
      return NOT_PLAIN;
  }
}

function orderArray(items: unknown[], depth: number): unknown {
  let copy: unknown[] | undefined;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i];
    const ordered = orderPlainData(item, depth + 1);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    if (ordered !== item) (copy ??= items.slice())[i] = ordered;
  }
  return copy ?? items;
}

function orderObject(object: Record<string, unknown>, depth: number): unknown {
  const keys = Object.keys(object);
  const sorted = isSorted(keys);
  // A JS object always enumerates integer-like keys first: no copy could hold code-point order.
  if (!sorted && keys.some(isIntegerLike)) return NOT_PLAIN;
  if (!sorted) {
    if (keys.some(hasSurrogate)) keys.sort(compareCodePoints);
    else keys.sort();
  }
  // Copies have no prototype: a `__proto__` key is then an own property like any other (on `{}` it
  // would set the copy's prototype and vanish from the output).
  let copy: Record<string, unknown> | undefined = sorted ? undefined : nullPrototype();
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const item = object[key];
    const ordered = orderPlainData(item, depth + 1);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    if (copy === undefined && ordered !== item) {
      copy = nullPrototype();
      for (let j = 0; j < i; j += 1) copy[keys[j]!] = object[keys[j]!];
    }
    if (copy !== undefined) copy[key] = ordered;
  }
  return copy ?? object;
}

function nullPrototype(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

function refuseNonFinite(_key: string, value: unknown): unknown {
  if (typeof value === 'number' && !Number.isFinite(value))
    throw new TypeError(`${value} is not representable in JSON`);
  return value;
}

/** Writes parsed JSON with every object's keys in code-point order. */
function writeSorted(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(writeSorted).join(',')}]`;
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const object = value as Record<string, unknown>;
  const members = Object.keys(object)
    .sort(compareCodePoints)
    .map((key) => `${JSON.stringify(key)}:${writeSorted(object[key])}`);
  return `{${members.join(',')}}`;
}

function isSorted(keys: string[]): boolean {
  for (let i = 1; i < keys.length; i += 1)
    if (compareCodePoints(keys[i - 1]!, keys[i]!) >= 0) return false;
  return true;
}

function isIntegerLike(key: string): boolean {
  return /^(?:0|[1-9]\d*)$/.test(key);
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
