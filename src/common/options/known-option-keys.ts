import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error.js';

/** The extras every forRoot module takes next to its options. */
const MODULE_EXTRAS = ['isGlobal', 'name'];

/**
 * Rejects option keys a module does not know, so a typo (`migrationRun`, `url` for `uri`) fails
 * bootstrap instead of being ignored in silence. The error names the key and the nearest valid one.
 *
 * @param moduleName the module whose options these are, e.g. `LongtermMemoryModule`
 * @param options the options object (extras such as `isGlobal` already removed by the builder)
 * @param known every key the module accepts at this level
 * @param path where this object sits in the options, e.g. `llm.` (empty at the top level)
 */
export function assertKnownOptionKeys(
  moduleName: string,
  options: object,
  known: readonly string[],
  path = '',
): void {
  // Module extras are taken off the options by the builder before they get here: a key that is
  // close to one is a misspelt extra, and is suggested as such.
  const candidates = path ? known : [...known, ...MODULE_EXTRAS];
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const nearest = nearestKey(key, candidates);
    throw new InvalidModuleOptionsError(
      moduleName,
      `${path}${key}`,
      `is not an option${path ? ` of ${path.slice(0, -1)}` : ''}; ` +
        (nearest
          ? `did you mean "${path}${nearest}"?`
          : `the options are ${known.map((k) => `"${k}"`).join(', ')}`),
    );
  }
}

/** The known key closest to `key` by edit distance (case-insensitive), if close enough to be a typo. */
export function nearestKey(key: string, known: readonly string[]): string | undefined {
  let best: { key: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(key.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { key: candidate, distance };
  }
  if (!best) return undefined;
  return best.distance <= Math.max(2, Math.floor(key.length / 3)) ? best.key : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}
