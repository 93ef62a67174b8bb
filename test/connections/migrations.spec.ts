import { afterEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { join } from 'node:path';
import { MigrationsNotRunError } from '../../src/common/errors/migrations-not-run.error.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { MIGRATIONS_TABLE } from '../../src/modules/connections/migrations/migration-definition.js';
import { packageMigrations } from '../../src/modules/connections/migrations/package-migrations.js';
import { agentMemoryMigrations } from '../../src/modules/connections/migrations/typeorm-migrations.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { createFreshDatabase, type FreshDatabase } from '../support/fresh-database.js';
import { tempDir } from '../support/test-databases.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fresh(dialect: 'postgres' | 'mysql'): Promise<FreshDatabase> {
  const database = await createFreshDatabase(dialect);
  cleanups.push(() => database.drop());
  return database;
}

function registry(): ConnectionRegistry {
  const created = new ConnectionRegistry();
  cleanups.push(() => created.onApplicationShutdown());
  return created;
}

async function recordedMigrations(dataSource: DataSource): Promise<string[]> {
  const rows = (await dataSource.query(
    `SELECT name FROM ${MIGRATIONS_TABLE} ORDER BY id`,
  )) as Array<{ name: string }>;
  return rows.map((row) => row.name);
}

describe.each(['postgres', 'mysql'] as const)('package migrations on %s', (dialect) => {
  it('run once when several processes start at the same time on an empty database', async () => {
    const database = await fresh(dialect);
    const leases = await Promise.all(
      Array.from({ length: 4 }, () =>
        registry().acquireSql({ dialect, url: database.url }, { migrationsRun: true }),
      ),
    );
    const names = packageMigrations(dialect).map((definition) => definition.name);
    expect(await recordedMigrations(leases[0]!.connection.dataSource)).toEqual(names);
    await Promise.all(leases.map((lease) => lease.release()));
  });

  it('fail fast with MigrationsNotRunError when migrationsRun is false and they were not run', async () => {
    const database = await fresh(dialect);
    const error = await rejectionOf(
      registry().acquireSql({ dialect, url: database.url }, { migrationsRun: false }),
    );
    expect(error).toBeInstanceOf(MigrationsNotRunError);
    expect((error as MigrationsNotRunError).pending).toEqual(
      packageMigrations(dialect).map((d) => d.name),
    );
  });

  it('also run through TypeORM’s own runner (CLI, user DataSource), which the package then sees as done', async () => {
    const database = await fresh(dialect);
    const dataSource = await new DataSource({
      type: dialect,
      url: database.url,
      migrations: agentMemoryMigrations(dialect),
      migrationsTableName: MIGRATIONS_TABLE,
    }).initialize();
    cleanups.push(() => dataSource.destroy());
    await dataSource.runMigrations();
    const lease = await registry().acquireSql(
      { dialect, url: database.url },
      { migrationsRun: false },
    );
    await lease.release();
    for (let i = 0; i < packageMigrations(dialect).length; i += 1)
      await dataSource.undoLastMigration();
    const tables = (await dataSource.query(
      dialect === 'postgres'
        ? "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name LIKE 'agent_%' AND table_name <> 'agent_memory_migrations'"
        : "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name LIKE 'agent_%' AND table_name <> 'agent_memory_migrations'",
    )) as unknown[];
    expect(tables).toEqual([]);
  });
});

describe('package migrations on sqlite', () => {
  it('record each migration once and fail fast on a database that lacks them', async () => {
    const path = join(tempDir(), 'migrations.sqlite');
    const error = await rejectionOf(
      registry().acquireSql({ dialect: 'sqlite', path }, { migrationsRun: false }),
    );
    expect(error).toBeInstanceOf(MigrationsNotRunError);
    const first = await registry().acquireSql({ dialect: 'sqlite', path }, { migrationsRun: true });
    const second = await registry().acquireSql(
      { dialect: 'sqlite', path },
      { migrationsRun: true },
    );
    expect(await recordedMigrations(second.connection.dataSource)).toEqual(
      packageMigrations('sqlite').map((definition) => definition.name),
    );
    await Promise.all([first.release(), second.release()]);
  });
});
