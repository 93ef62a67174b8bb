import { afterAll } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { InMemoryRunStore } from '../../src/modules/agent/runs/in-memory.run-store.js';
import { RedisRunStore } from '../../src/modules/agent/runs/redis.run-store.js';
import type { RunStore } from '../../src/modules/agent/runs/run-store.interface.js';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { SqlRunStore } from '../../src/modules/agent/runs/sql.run-store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from './test-databases.js';

/**
 * Every run store backend by name, each opened on demand (`label` names the file's SQLite file and
 * Redis prefix; connections close after the file): what stands for the store an app's processes
 * share, one `RunStore` per "process" opened from the same connection.
 */
export function sharedRunStores(
  label: string,
  retentionMs = 60_000,
): Array<[string, () => Promise<RunStore>]> {
  const registry = new ConnectionRegistry();
  afterAll(() => registry.onApplicationShutdown());
  const sql = (target: SqlTarget) => async (): Promise<RunStore> =>
    new SqlRunStore(
      (await registry.acquireSql(target, { migrationsRun: true, schema: AGENT_RUNS_SCHEMA })).value,
      retentionMs,
    );
  return [
    ['memory', async () => new InMemoryRunStore(retentionMs)],
    ['sqlite', sql({ dialect: 'sqlite', path: join(tempDir(), `${label}.sqlite`) })],
    ['postgres', sql({ dialect: 'postgres', url: TEST_POSTGRES_URL })],
    ['mysql', sql({ dialect: 'mysql', url: TEST_MYSQL_URL })],
    [
      'redis',
      async () =>
        new RedisRunStore(
          (await registry.acquireRedis(TEST_REDIS_URL)).value,
          `test:${label}:${randomUUID().slice(0, 8)}:`,
          retentionMs,
        ),
    ],
  ];
}
