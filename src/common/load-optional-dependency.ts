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
  try {
    return (await import(packageName)) as T;
  } catch (error) {
    if (isModuleNotFound(error, packageName)) {
      throw new MissingDriverError(packageName, neededBy, error);
    }
    throw error;
  }
}

function isModuleNotFound(error: unknown, packageName: string): boolean {
  // Read fields structurally: the error may come from another realm (a VM context), where
  // `instanceof Error` is false.
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return (
    (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') &&
    String(message).includes(`'${packageName}'`)
  );
}
