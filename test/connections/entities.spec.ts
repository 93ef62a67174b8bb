import { afterAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import type { ConnectionLease } from '../../src/modules/connections/connection-lease.js';
import {
  type SqlConnection,
  ConnectionRegistry,
} from '../../src/modules/connections/connection-registry.js';
import { buildDataSourceOptions } from '../../src/modules/connections/sql/data-source-options.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import { PACKAGE_SCHEMAS } from '../../src/package-schema.js';
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
    // Each feature migrates its own tables, as its module does.
    const leases: Array<ConnectionLease<SqlConnection>> = [];
    for (const schema of PACKAGE_SCHEMAS)
      leases.push(await registry.acquireSql(target, { migrationsRun: true, schema }));
    expect(leases.every((lease) => lease.value === leases[0]!.value)).toBe(true);
    // A DataSource that knows every entity of the package (as ormconfig.ts builds it).
    const whole =
      target.dialect === 'sqlite'
        ? leases[0]!.value.dataSource
        : new DataSource(buildDataSourceOptions(target, { poolSize: 1 }, PACKAGE_SCHEMAS));
    if (target.dialect === 'sqlite') {
      // One connection per SQLite file: look at it through a DataSource with every entity.
      const sqlite = new DataSource(buildDataSourceOptions(target, {}, PACKAGE_SCHEMAS));
      await sqlite.initialize();
      try {
        expect(sqlite.entityMetadatas.length).toBeGreaterThanOrEqual(PACKAGE_SCHEMAS.length);
        const { upQueries } = await sqlite.driver.createSchemaBuilder().log();
        expect(upQueries.map((query) => query.query)).toEqual([]);
      } finally {
        await sqlite.destroy();
      }
      return;
    }
    await whole.initialize();
    try {
      expect(whole.entityMetadatas.length).toBeGreaterThanOrEqual(PACKAGE_SCHEMAS.length);
      const { upQueries } = await whole.driver.createSchemaBuilder().log();
      expect(upQueries.map((query) => query.query)).toEqual([]);
    } finally {
      await whole.destroy();
    }
  });
});
