import { describe, expect, it } from '@jest/globals';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';
import { CHAT_MEMORY_SCHEMA } from '../../src/modules/chat-memory/schema/chat-memory.schema.js';

describe('ConnectionRegistry.checkHealth', () => {
  it('labels connections by kind, numbered when several, and reports failures without details', async () => {
    const registry = new ConnectionRegistry();
    try {
      const url = new URL(TEST_REDIS_URL);
      await registry.acquireRedis(TEST_REDIS_URL);
      const second = await registry.acquireRedis(
        `redis://${url.hostname}:${url.port || 6379}/3?password=x`,
      );
      await registry.acquireSql(
        { dialect: 'sqlite', path: ':memory:' },
        { migrationsRun: true, schema: CHAT_MEMORY_SCHEMA },
      );
      second.value.disconnect();
      const checks = await registry.checkHealth();
      expect(checks.map((c) => c.name).sort()).toEqual(['redis-1', 'redis-2', 'sqlite']);
      const failed = checks.find((c) => !c.healthy)!;
      expect(Object.keys(failed).sort()).toEqual(['healthy', 'latencyMs', 'name']);
    } finally {
      await registry.onApplicationShutdown();
    }
  });
});
