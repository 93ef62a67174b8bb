import { ConfigValidationError } from './config-validation.error.js';

/** The `ConfigValidationError` a loader throws (tests); fails if it throws none. */
export function errorOf(load: () => unknown): ConfigValidationError {
  try {
    load();
  } catch (error) {
    if (error instanceof ConfigValidationError) return error;
    throw error;
  }
  throw new Error('expected a ConfigValidationError');
}

/** The variable named by the error a loader throws (tests). */
export function variableAtFault(load: () => unknown): string {
  return errorOf(load).variable;
}
