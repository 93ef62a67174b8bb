import { registerAs } from '@nestjs/config';
import type { WorkingMemoryModuleOptions } from 'nest-agent-memory';
import type { Env } from './env.js';
import { readRedisUrl } from './redis-url.js';

/**
 * Builds `WorkingMemoryModule` options: the Redis backend on `REDIS_URL` when it is set (so every
 * instance shares the memories), else process memory.
 */
export function loadWorkingMemoryConfig(env: Env = process.env): WorkingMemoryModuleOptions {
  const url = readRedisUrl(env);
  return url === undefined ? { backend: 'memory' } : { backend: 'redis', url };
}

/** The `workingMemory` config namespace. */
export const workingMemoryConfig = registerAs('workingMemory', () => loadWorkingMemoryConfig());
