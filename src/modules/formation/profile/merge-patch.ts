/** A JSON object (a profile, or a merge patch of one). */
export type JsonObject = { [key: string]: unknown };

/** Whether a value is a plain JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Applies a JSON Merge Patch (RFC 7396) to a document, returning a new one (neither is changed): a
 * member set to `null` is removed, an object member is merged member by member, anything else
 * (a string, a number, an array) replaces the member whole. Members the patch does not name are
 * kept as they are. Applying the same patch twice gives what applying it once gave.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return structuredClone(patch);
  const merged: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    // Defined, not assigned: a member named `__proto__` stays a member, never the prototype.
    else
      Object.defineProperty(merged, key, {
        value: applyMergePatch(Object.hasOwn(merged, key) ? merged[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return merged;
}

/** The members a patch changes, as dotted paths (`address.city`), for logs and records. */
export function patchedPaths(patch: JsonObject, prefix = ''): string[] {
  return Object.entries(patch).flatMap(([key, value]) =>
    isJsonObject(value) ? patchedPaths(value, `${prefix}${key}.`) : [`${prefix}${key}`],
  );
}
