import { ServiceUnavailableException, type Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';

/** A provider of whatever module the app imported, wherever; `undefined` when none provides it. */
export function findProvider<T>(moduleRef: ModuleRef, token: Type<T> | string): T | undefined {
  try {
    return moduleRef.get<T>(token, { strict: false });
  } catch {
    return undefined;
  }
}

/** `value`, or 503 naming the module the app left out (`what`: a route, a tool). */
export function requiredModule<T>(value: T | undefined, module: string, what: string): T {
  if (value === undefined)
    throw new ServiceUnavailableException(
      `This ${what} needs ${module}, which the application does not import`,
    );
  return value;
}
