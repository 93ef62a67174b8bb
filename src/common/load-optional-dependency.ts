import { MissingDriverError } from './errors/missing-driver.error.js';

/**
 * Imports an optional peer dependency on first use, so that an application that uses one backend
 * does not need the drivers of the others installed.
 *
 * @param packageName the npm package, e.g. `pg`
 * @param neededBy the feature that needs it, used in the error message
 * @returns the module namespace (for CommonJS packages, `default` holds `module.exports`)
 * @throws MissingDriverError when the package is not installed
 */
export async function loadOptionalDependency<T = unknown>(
  packageName: string,
  neededBy: string,
): Promise<T> {
  const [loaded] = await loadOptionalDependencies<[T]>([packageName], neededBy);
  return loaded;
}

/** The last import started: the next one waits for it (see `importOneAtATime`). */
let lastImport: Promise<unknown> = Promise.resolve();

/**
 * Imports a package after every import started before it has settled. Two dynamic imports at once
 * that share a dependency (`@ai-sdk/openai` and `@ai-sdk/anthropic` share `zod`) fail in Jest's
 * ESM loader on Node 22 ("request for './classic/external.js' is from a module not been linked",
 * jestjs/jest#11434) — a test of an app with two backends or providers would fail by chance. In
 * Node itself one at a time costs nothing that matters: each package loads once, at startup. Only
 * third-party packages come through here: one whose loading asked for another through it would
 * wait on itself.
 */
function importOneAtATime(name: string): Promise<unknown> {
  const loaded = lastImport.then(() => import(name));
  lastImport = loaded.catch(() => undefined);
  return loaded;
}

/**
 * Imports several optional peer dependencies that one feature needs together (`typeorm` and `pg`),
 * reporting every missing one in a single `MissingDriverError`, not one per start.
 */
export async function loadOptionalDependencies<T extends unknown[]>(
  packageNames: readonly string[],
  neededBy: string,
): Promise<T> {
  const settled = await Promise.allSettled(packageNames.map(importOneAtATime));
  const missing: string[] = [];
  let firstCause: unknown;
  settled.forEach((outcome, index) => {
    if (outcome.status === 'fulfilled') return;
    if (!isModuleNotFound(outcome.reason, packageNames[index]!)) throw outcome.reason;
    missing.push(packageNames[index]!);
    firstCause ??= outcome.reason;
  });
  if (missing.length) throw new MissingDriverError(missing, neededBy, firstCause);
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as T;
}

/** True when `error` says that `packageName` itself (not one of its imports) cannot be found. */
export function isModuleNotFound(error: unknown, packageName: string): boolean {
  // Read fields structurally: the error may come from another realm (a VM context), where
  // `instanceof Error` is false.
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    String(message).includes(`'${packageName}'`)
  );
}
