import { registerAs } from '@nestjs/config';
import type { WorkingMemoryModuleOptions, WorkingMemoryQuota } from 'nest-agent-memory';
import { type Env, readByteSize, readInteger } from './env.js';
import { readRedisUrl } from './redis-url.js';
import { readRedisKeyPrefix } from './redis.config.js';

const MIB = 1024 * 1024;

/**
 * Builds `WorkingMemoryModule` options: the Redis backend on `REDIS_URL` when it is set (so every
 * instance shares the memories), else process memory, holding at most
 * `WORKING_MEMORY_CAPACITY_BYTES` (`64mb`). Every tenant gets a quota across its conversations:
 * `WORKING_MEMORY_TENANT_MAX_BYTES` (`16mb`) in `WORKING_MEMORY_TENANT_MAX_CONVERSATIONS` (1,000)
 * memories (0 turns either off); one value holds at most `WORKING_MEMORY_MAX_VALUE_BYTES`
 * (`256kb`).
 */
export function loadWorkingMemoryConfig(env: Env = process.env): WorkingMemoryModuleOptions {
  const url = readRedisUrl(env);
  const maxBytes = readByteSize(env, 'WORKING_MEMORY_TENANT_MAX_BYTES', 16 * MIB, 0, 1024 ** 4);
  const maxConversations = readInteger(
    env,
    'WORKING_MEMORY_TENANT_MAX_CONVERSATIONS',
    1_000,
    0,
    100_000_000,
  );
  const quota: WorkingMemoryQuota = {
    ...(maxBytes > 0 ? { maxBytes } : {}),
    ...(maxConversations > 0 ? { maxConversations } : {}),
  };
  const limits = {
    maxValueBytes: readByteSize(env, 'WORKING_MEMORY_MAX_VALUE_BYTES', 256 * 1024, 1, 1024 ** 3),
    ...(Object.keys(quota).length > 0 ? { quota } : {}),
  };
  if (url !== undefined)
    return { backend: 'redis', url, keyPrefix: `${readRedisKeyPrefix(env)}working:`, ...limits };
  const capacity = readByteSize(env, 'WORKING_MEMORY_CAPACITY_BYTES', 64 * MIB, 1024, 1024 ** 4);
  return { backend: 'memory', capacity: { maxTotalBytes: capacity }, ...limits };
}

/** The `workingMemory` config namespace. */
export const workingMemoryConfig = registerAs('workingMemory', () => loadWorkingMemoryConfig());
