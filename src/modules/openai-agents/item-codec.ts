import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { containsNul, hasLoneSurrogate } from '../../common/utf8.js';

/** Where a value sits inside an encoded value: object keys and array indexes, outermost first. */
type ValuePath = Array<string | number>;

/**
 * A value JSON text cannot carry, or that a store refuses, put back by {@link decodeValue}:
 * bytes (as base64), `undefined`, numbers JSON has no literal for, and strings holding U+0000 or a
 * lone surrogate (as their JSON-escaped text, which holds neither).
 */
type SpecialValue =
  | [path: ValuePath, kind: 'bytes', base64: string]
  | [path: ValuePath, kind: 'undefined']
  | [path: ValuePath, kind: 'number', literal: 'NaN' | 'Infinity' | '-Infinity' | '-0']
  | [path: ValuePath, kind: 'string', jsonText: string];

/**
 * A value as stored: JSON-safe data (key order kept) with `null` where a special value stood, and
 * the special values with their paths.
 */
export interface EncodedValue {
  json: unknown;
  special?: SpecialValue[];
}

const MAX_DEPTH = 100;

/**
 * Encodes plain data (objects, arrays, strings, numbers, booleans, null, `undefined`, `Uint8Array`)
 * so that a store's JSON metadata carries it exactly. Anything else — a class instance, a `Date`,
 * a function, a bigint, a symbol, a cycle — is refused with an `InvalidArgumentError` naming
 * `label` and the path, rather than stored changed.
 */
export function encodeValue(value: unknown, label: string): EncodedValue {
  const special: SpecialValue[] = [];
  const ancestors = new Set<object>();
  const walk = (current: unknown, path: ValuePath): unknown => {
    switch (typeof current) {
      case 'boolean':
        return current;
      case 'string':
        if (!containsNul(current) && !hasLoneSurrogate(current)) return current;
        special.push([path, 'string', JSON.stringify(current)]);
        return null;
      case 'number':
        if (Number.isFinite(current) && !Object.is(current, -0)) return current;
        special.push([path, 'number', Object.is(current, -0) ? '-0' : (String(current) as 'NaN')]);
        return null;
      case 'undefined':
        special.push([path, 'undefined']);
        return null;
      case 'object':
        if (current === null) return null;
        if (isBytes(current)) {
          special.push([path, 'bytes', Buffer.from(current).toString('base64')]);
          return null;
        }
        if (ancestors.has(current) || path.length > MAX_DEPTH)
          refuse(path, 'a cycle or is too deep');
        ancestors.add(current);
        try {
          return Array.isArray(current)
            ? Array.from(current as unknown[], (entry, index) => walk(entry, [...path, index]))
            : walkObject(current, path);
        } finally {
          ancestors.delete(current);
        }
      default:
        return refuse(path, `a ${typeof current}`);
    }
  };
  const walkObject = (object: object, path: ValuePath): Record<string, unknown> => {
    if (!isPlainObject(object))
      refuse(path, `a ${object.constructor?.name ?? 'class'} instance, not plain data`);
    const copy: Record<string, unknown> = {};
    for (const [key, entry] of Object.entries(object)) {
      if (containsNul(key) || hasLoneSurrogate(key))
        refuse(path, 'a key with U+0000 or a lone surrogate');
      // defineProperty, not assignment: a `__proto__` key stays an own key.
      Object.defineProperty(copy, key, {
        value: walk(entry, [...path, key]),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  };
  const refuse = (path: ValuePath, what: string): never => {
    const where = path.map((key) => `[${JSON.stringify(key)}]`).join('');
    throw new InvalidArgumentError(
      label,
      `holds ${what} at ${where || 'its top'}: cannot be stored`,
    );
  };
  const json = walk(value, []);
  return special.length === 0 ? { json } : { json, special };
}

/** The value {@link encodeValue} was given, from a copy of what it returned. */
export function decodeValue(encoded: EncodedValue): unknown {
  // A JSON copy (the data is JSON by construction): plain objects of this realm.
  const root = { value: JSON.parse(JSON.stringify(encoded.json) ?? 'null') as unknown };
  for (const [path, kind, payload] of encoded.special ?? []) {
    const decoded =
      kind === 'bytes'
        ? new Uint8Array(Buffer.from(payload, 'base64'))
        : kind === 'undefined'
          ? undefined
          : kind === 'number'
            ? payload === '-0'
              ? -0
              : Number(payload)
            : (JSON.parse(payload) as string);
    let parent: Record<string | number, unknown> = root as Record<string, unknown>;
    let key: string | number = 'value';
    for (const step of path) {
      parent = parent[key] as Record<string | number, unknown>;
      key = step;
    }
    Object.defineProperty(parent, key, {
      value: decoded,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return root.value;
}

/** Whether a stored value has the shape {@link encodeValue} gives. */
export function isEncodedValue(value: unknown): value is EncodedValue {
  if (typeof value !== 'object' || value === null || !('json' in value)) return false;
  const special = (value as EncodedValue).special;
  return special === undefined || Array.isArray(special);
}

/** A `Uint8Array` (a `Buffer` too), from this realm or another. */
function isBytes(value: object): value is Uint8Array {
  return (
    ArrayBuffer.isView(value) && Object.prototype.toString.call(value) === '[object Uint8Array]'
  );
}

/** An object literal or `Object.create(null)`, from this realm or another (a VM context's). */
function isPlainObject(value: object): boolean {
  const prototype = Object.getPrototypeOf(value) as object | null;
  return (
    prototype === null ||
    (Object.getPrototypeOf(prototype) === null &&
      Object.prototype.toString.call(value) === '[object Object]')
  );
}
