import { describe, expect, it } from '@jest/globals';
import { errorOf } from './config-error.testing.js';
import { loadWorkingMemoryConfig } from './working-memory.config.js';

describe('working memory configuration', () => {
  const defaults = {
    maxValueBytes: 256 * 1024,
    quota: { maxBytes: 16 * 1024 * 1024, maxConversations: 1_000 },
  };

  it('uses process memory without REDIS_URL, with the process capacity and tenant quotas', () => {
    expect(loadWorkingMemoryConfig({})).toEqual({
      backend: 'memory',
      capacity: { maxTotalBytes: 64 * 1024 * 1024 },
      ...defaults,
    });
  });

  it('uses Redis on REDIS_URL, with the tenant quotas', () => {
    expect(loadWorkingMemoryConfig({ REDIS_URL: 'rediss://:p@cache:6380' })).toEqual({
      backend: 'redis',
      url: 'rediss://:p@cache:6380',
      keyPrefix: 'agent-memory:working:',
      ...defaults,
    });
  });

  it('reads the limits, 0 turning a quota off', () => {
    expect(
      loadWorkingMemoryConfig({
        WORKING_MEMORY_TENANT_MAX_BYTES: '0',
        WORKING_MEMORY_TENANT_MAX_CONVERSATIONS: '5',
        WORKING_MEMORY_MAX_VALUE_BYTES: '10kb',
        WORKING_MEMORY_CAPACITY_BYTES: '2mb',
      }),
    ).toEqual({
      backend: 'memory',
      capacity: { maxTotalBytes: 2 * 1024 * 1024 },
      maxValueBytes: 10 * 1024,
      quota: { maxConversations: 5 },
    });
    expect(
      loadWorkingMemoryConfig({
        WORKING_MEMORY_TENANT_MAX_BYTES: '0',
        WORKING_MEMORY_TENANT_MAX_CONVERSATIONS: '0',
      }).quota,
    ).toBeUndefined();
    expect(
      errorOf(() => loadWorkingMemoryConfig({ WORKING_MEMORY_MAX_VALUE_BYTES: '0' })).variable,
    ).toBe('WORKING_MEMORY_MAX_VALUE_BYTES');
  });

  it('names REDIS_URL for an invalid value, without its password', () => {
    const wrongScheme = errorOf(() => loadWorkingMemoryConfig({ REDIS_URL: 'http://cache' }));
    expect(wrongScheme.variable).toBe('REDIS_URL');
    const malformed = errorOf(() => loadWorkingMemoryConfig({ REDIS_URL: 'redis://:secret@h:x' }));
    expect(malformed.variable).toBe('REDIS_URL');
    expect(malformed.message).not.toContain('secret');
  });
});
