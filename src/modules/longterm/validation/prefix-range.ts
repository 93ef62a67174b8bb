/**
 * The exclusive upper bound of the keys that start with `prefix`, in code-point (UTF-8 byte)
 * order: the prefix with its last code point incremented (dropping trailing U+10FFFF), or
 * `undefined` when there is none (an empty prefix, or only U+10FFFF). Used for index range scans,
 * so the prefix is matched literally: no character is a wildcard.
 */
export function prefixUpperBound(prefix: string): string | undefined {
  const codePoints = [...prefix];
  while (codePoints.length > 0) {
    const last = codePoints.pop()!.codePointAt(0)!;
    let next = last + 1;
    if (next === 0xd800) next = 0xe000; // skip the surrogate range: not characters
    if (next <= 0x10ffff) return codePoints.join('') + String.fromCodePoint(next);
  }
  return undefined;
}
