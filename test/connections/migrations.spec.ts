import { afterEach, describe, expect, it } from '@jest/globals';
import { DataSource } from 'typeorm';
import { join } from 'node:path';
import { MigrationsNotRunError } from '../../src/common/errors/migrations-not-run.error.js';
import type { ConnectionLease } from '../../src/modules/connections/connection-lease.js';
import {
  type SqlConnection,
  ConnectionRegistry,
} from '../../src/modules/connections/connection-registry.js';
import { MIGRATIONS_TABLE } from '../../src/modules/connections/migrations/migration-definition.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import { CHAT_MEMORY_SCHEMA } from '../../src/modules/chat-memory/schema/chat-memory.schema.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';
import {
  PACKAGE_SCHEMAS,
  agentMemoryMigrations,
  packageMigrations,
} from '../../src/package-schema.js';
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

/** Opens the database the way every module of an app does: each migrating its own tables. */
async function acquireAll(from: ConnectionRegistry, target: SqlTarget, migrationsRun: boolean) {
  const leases: Array<ConnectionLease<SqlConnection>> = [];
  for (const schema of PACKAGE_SCHEMAS)
    leases.push(await from.acquireSql(target, { migrationsRun, schema }));
  return {
    value: leases[0]!.value,
    release: () => Promise.all(leases.map((lease) => lease.release())).then(() => undefined),
  };
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
      Array.from({ length: 4 }, () => acquireAll(registry(), { dialect, url: database.url }, true)),
    );
    const names = packageMigrations(dialect).map((definition) => definition.name);
    expect((await recordedMigrations(leases[0]!.value.dataSource)).sort()).toEqual(names.sort());
    await Promise.all(leases.map((lease) => lease.release()));
  });

  it('fail fast with MigrationsNotRunError when migrationsRun is false and they were not run', async () => {
    const database = await fresh(dialect);
    const error = await rejectionOf(
      registry().acquireSql(
        { dialect, url: database.url },
        { migrationsRun: false, schema: CHAT_MEMORY_SCHEMA },
      ),
    );
    expect(error).toBeInstanceOf(MigrationsNotRunError);
    expect((error as MigrationsNotRunError).pending).toEqual(
      CHAT_MEMORY_SCHEMA.migrations(dialect).map((d) => d.name),
    );
    // It names what a package user runs, not this repository's own files.
    expect((error as Error).message).toContain(`agentMemoryMigrations('${dialect}')`);
    expect((error as Error).message).toContain('npx typeorm migration:run -d');
    expect((error as Error).message).not.toContain('ormconfig');
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
    const lease = await acquireAll(registry(), { dialect, url: database.url }, false);
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
      registry().acquireSql(
        { dialect: 'sqlite', path },
        { migrationsRun: false, schema: LONGTERM_SCHEMA },
      ),
    );
    expect(error).toBeInstanceOf(MigrationsNotRunError);
    const first = await acquireAll(registry(), { dialect: 'sqlite', path }, true);
    const second = await acquireAll(registry(), { dialect: 'sqlite', path }, true);
    expect((await recordedMigrations(second.value.dataSource)).sort()).toEqual(
      packageMigrations('sqlite')
        .map((definition) => definition.name)
        .sort(),
    );
    await Promise.all([first.release(), second.release()]);
  });

  it('migrates only the tables of the module that opens a file', async () => {
    const path = join(tempDir(), 'longterm-only.sqlite');
    const lease = await registry().acquireSql(
      { dialect: 'sqlite', path },
      { migrationsRun: true, schema: LONGTERM_SCHEMA },
    );
    const tables = (await lease.value.dataSource.query(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'agent_%' ORDER BY name",
    )) as Array<{ name: string }>;
    expect(tables.map((t) => t.name)).toEqual([
      'agent_longterm_counters',
      'agent_longterm_records',
      // The FTS5 text index (contentless, partitioned by entity tag) and its shadow tables.
      'agent_longterm_terms',
      'agent_longterm_terms_config',
      'agent_longterm_terms_data',
      'agent_longterm_terms_docsize',
      'agent_longterm_terms_idx',
      'agent_longterm_text_tags',
      'agent_memory_migrations',
    ]);
    await lease.release();
  });
});
