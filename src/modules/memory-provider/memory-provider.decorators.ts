import { Inject } from '@nestjs/common';
import { getMemoryProviderToken } from './memory-provider.constants.js';

/** Injects a `MemoryProvider`: the default one, or the one registered under `name`. */
export function InjectMemoryProvider(name?: string): ParameterDecorator & PropertyDecorator {
  return Inject(getMemoryProviderToken(name));
}
