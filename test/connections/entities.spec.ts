import { afterAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, tempDir } from '../support/test-databases.js';

const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

const targets: SqlTarget[] = [
  { dialect: 'postgres', url: TEST_POSTGRES_URL },
  { dialect: 'mysql', url: TEST_MYSQL_URL },
  { dialect: 'sqlite', path: join(tempDir(), 'entities.sqlite') },
];

describe.each(targets)('package entities on $dialect', (target) => {
  it('match the migrated schema: TypeORM finds nothing to change', async () => {
    const lease = await registry.acquireSql(target, { migrationsRun: true });
    const { upQueries } = await lease.connection.dataSource.driver.createSchemaBuilder().log();
    expect(upQueries.map((query) => query.query)).toEqual([]);
  });
});
