import { afterAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { MysqlLongtermStore } from '../../src/modules/longterm/backends/mysql.longterm.store.js';
import { PostgresLongtermStore } from '../../src/modules/longterm/backends/postgres.longterm.store.js';
import { RedisLongtermStore } from '../../src/modules/longterm/backends/redis.longterm.store.js';
import { SqliteLongtermStore } from '../../src/modules/longterm/backends/sqlite.longterm.store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { runLongtermStoreConformance } from '../../src/testing/index.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';

const hooks = { describe, it, expect, afterAll };
const shared = { durable: true, sharedAcrossInstances: true };
const sqlitePath = join(tempDir(), 'longterm.sqlite');

/** Each instance is its own registry: its own pool or connection, as a separate process would have. */
function instance<T>(open: (registry: ConnectionRegistry) => Promise<T>) {
  return async () => {
    const registry = new ConnectionRegistry();
    return { subject: await open(registry), close: () => registry.onApplicationShutdown() };
  };
}

runLongtermStoreConformance(
  'sqlite',
  (clock) =>
    instance(
      async (r) =>
        new SqliteLongtermStore(
          (
            await r.acquireSql(
              { dialect: 'sqlite', path: sqlitePath },
              { migrationsRun: true, schema: LONGTERM_SCHEMA },
            )
          ).value.dataSource,
          { now: clock.now },
        ),
    )(),
  hooks,
  shared,
);

runLongtermStoreConformance(
  'postgres',
  (clock) =>
    instance(
      async (r) =>
        new PostgresLongtermStore(
          (
            await r.acquireSql(
              { dialect: 'postgres', url: TEST_POSTGRES_URL },
              { migrationsRun: true, schema: LONGTERM_SCHEMA },
            )
          ).value.dataSource,
          { now: clock.now },
        ),
    )(),
  hooks,
  shared,
);

runLongtermStoreConformance(
  'mysql (MariaDB)',
  (clock) =>
    instance(
      async (r) =>
        new MysqlLongtermStore(
          (
            await r.acquireSql(
              { dialect: 'mysql', url: TEST_MYSQL_URL },
              { migrationsRun: true, schema: LONGTERM_SCHEMA },
            )
          ).value.dataSource,
          { now: clock.now },
        ),
    )(),
  hooks,
  shared,
);

runLongtermStoreConformance(
  'redis',
  (clock) =>
    instance(
      async (r) =>
        new RedisLongtermStore((await r.acquireRedis(TEST_REDIS_URL)).value, 'test:longterm:', {
          now: clock.now,
        }),
    )(),
  hooks,
  shared,
);
