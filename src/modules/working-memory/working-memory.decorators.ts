import { Inject } from '@nestjs/common';
import { WORKING_MEMORY_STORE } from './working-memory.constants.js';

/** Injects the working-memory store port (`WorkingMemoryBackend`); most code wants `WorkingMemoryService`. */
export function InjectWorkingMemoryStore(): ParameterDecorator & PropertyDecorator {
  return Inject(WORKING_MEMORY_STORE);
}
