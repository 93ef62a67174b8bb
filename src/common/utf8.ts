/** Byte length of a string once encoded as UTF-8. */
export function utf8ByteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/**
 * True if the string takes more than `maxBytes` once encoded as UTF-8. A UTF-16 code unit takes at
 * most 3 bytes, so short strings are answered without encoding them.
 */
export function exceedsUtf8Bytes(value: string, maxBytes: number): boolean {
  return value.length * 3 > maxBytes && utf8ByteLength(value) > maxBytes;
}

/** True if the string holds U+0000, which PostgreSQL text columns cannot store. */
export function containsNul(value: string): boolean {
  return value.includes('\u0000');
}

/** With the `u` flag a surrogate pair is one code point, so only a lone surrogate is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * True if the string holds a lone surrogate. UTF-8 cannot encode one: drivers silently turn it into
 * U+FFFD, so two different ids would become the same stored id.
 */
export function hasLoneSurrogate(value: string): boolean {
  return LONE_SURROGATE.test(value);
}
