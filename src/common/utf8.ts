/** Byte length of a string once encoded as UTF-8. */
export function utf8ByteLength(value: string): number {
  return Buffer.byteLength(value, 'utf8');
}

/** True if the string holds U+0000, which PostgreSQL text columns cannot store. */
export function containsNul(value: string): boolean {
  return value.includes('\u0000');
}
