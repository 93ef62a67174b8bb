import { describe, expect, it } from '@jest/globals';
import { errorOf } from './config-error.testing.js';
import { allConfigNamespaces, loadAllConfig } from './validate-env.js';

describe('loadAllConfig', () => {
  it('loads every namespace from an empty environment', () => {
    const config = loadAllConfig({});
    expect(Object.keys(config).map((name) => `CONFIGURATION(${name})`)).toEqual(
      allConfigNamespaces.map((namespace) => String(namespace.KEY)),
    );
    expect(config.llm.echoByDefault).toBe(true);
    expect(config.agent.queue).toEqual({ driver: 'inline', attempts: 5 });
    expect(config.workingMemory).toMatchObject({ backend: 'memory' });
  });

  it('shares REDIS_URL between the queue and working memory', () => {
    const config = loadAllConfig({ REDIS_URL: 'redis://cache:6379' });
    expect(config.agent.queue).toMatchObject({ driver: 'bull', redisUrl: 'redis://cache:6379' });
    expect(config.workingMemory).toMatchObject({ backend: 'redis', url: 'redis://cache:6379' });
  });

  it('throws the first invalid variable of any namespace', () => {
    expect(errorOf(() => loadAllConfig({ PORT: 'x' })).variable).toBe('PORT');
    expect(errorOf(() => loadAllConfig({ RATE_LIMIT_MAX: 'x' })).variable).toBe('RATE_LIMIT_MAX');
    expect(errorOf(() => loadAllConfig({ API_KEYS: 'x' })).variable).toBe('API_KEYS');
  });
});
