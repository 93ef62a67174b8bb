import { describe, expect, it } from '@jest/globals';
import { errorOf } from './config-error.testing.js';
import { loadWorkingMemoryConfig } from './working-memory.config.js';

describe('working memory configuration', () => {
  it('uses process memory without REDIS_URL', () => {
    expect(loadWorkingMemoryConfig({})).toEqual({ backend: 'memory' });
  });

  it('uses Redis on REDIS_URL', () => {
    expect(loadWorkingMemoryConfig({ REDIS_URL: 'rediss://:p@cache:6380' })).toEqual({
      backend: 'redis',
      url: 'rediss://:p@cache:6380',
    });
  });

  it('names REDIS_URL for an invalid value, without its password', () => {
    const wrongScheme = errorOf(() => loadWorkingMemoryConfig({ REDIS_URL: 'http://cache' }));
    expect(wrongScheme.variable).toBe('REDIS_URL');
    const malformed = errorOf(() => loadWorkingMemoryConfig({ REDIS_URL: 'redis://:secret@h:x' }));
    expect(malformed.variable).toBe('REDIS_URL');
    expect(malformed.message).not.toContain('secret');
  });
});
