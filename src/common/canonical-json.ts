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

/**
 * Per depth, the last key list found out of order and that list in order: values of one shape come
 * in runs (a batch's records), and each after the first is put in order without sorting.
 */
const lastUnsorted: Array<readonly string[] | undefined> = [];
const lastSorted: Array<readonly string[]> = [];

function orderObject(object: Record<string, unknown>, depth: number): unknown {
  let keys: readonly string[] = Object.keys(object);
  let sorted = false;
  if (keys.length > 1 && sameKeys(keys, lastUnsorted[depth])) keys = lastSorted[depth]!;
  else if (keys.length < 2 || isSorted(keys)) sorted = true;
  else keys = inCodePointOrder(keys, depth);
  if (keys === NO_ORDER) return NOT_PLAIN;
  let copy: Record<string, unknown> | undefined = sorted ? undefined : {};
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    const item = object[key];
    const ordered = orderPlainData(item, depth + 1);
    if (ordered === NOT_PLAIN) return NOT_PLAIN;
    if (copy === undefined && ordered !== item) {
      copy = {};
      for (let j = 0; j < i; j += 1) setOwn(copy, keys[j]!, object[keys[j]!]);
    }
    if (copy !== undefined) setOwn(copy, key, ordered);
  }
  return copy ?? object;
}

/** Marks a key list no object can enumerate in code-point order. */
const NO_ORDER: readonly string[] = [];

/**
 * Out-of-order keys in code-point order, remembered for their depth ({@link NO_ORDER} when an
 * integer-like key makes that impossible: a JS object always enumerates them first, so no copy
 * could hold the order).
 */
function inCodePointOrder(keys: readonly string[], depth: number): readonly string[] {
  if (keys.some(isIntegerLike)) return NO_ORDER;
  // The native sort is UTF-16 order, which differs from code-point order only around surrogates.
  const ordered = [...keys].sort();
  if (!isSorted(ordered)) ordered.sort(compareCodePoints);
  lastUnsorted[depth] = keys;
  lastSorted[depth] = ordered;
  return ordered;
}

function sameKeys(a: readonly string[], b: readonly string[] | undefined): boolean {
  if (b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Sets an own enumerable property of a copy. Copies are ordinary objects (JSON.stringify's fast path
 * skips objects without a prototype); a `__proto__` key is defined, so it stays an own property
 * like any other instead of setting the copy's prototype and vanishing from the output.
 */
function setOwn(copy: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(copy, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  else copy[key] = value;
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

function isSorted(keys: readonly string[]): boolean {
  for (let i = 1; i < keys.length; i += 1)
    if (compareCodePoints(keys[i - 1]!, keys[i]!) >= 0) return false;
  return true;
}

function isIntegerLike(key: string): boolean {
  const first = key.charCodeAt(0);
  return first >= 48 && first <= 57 && /^(?:0|[1-9]\d*)$/.test(key);
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
