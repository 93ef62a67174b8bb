import { Inject } from '@nestjs/common';
import { LONGTERM_MEMORY_STORE } from './longterm.constants.js';

/** Injects the `LongtermMemoryStore` (a stand-in that throws when the tier is off). */
export function InjectLongtermMemoryStore(): ParameterDecorator & PropertyDecorator {
  return Inject(LONGTERM_MEMORY_STORE);
}
