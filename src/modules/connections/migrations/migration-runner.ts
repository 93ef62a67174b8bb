import type { DataSource, QueryRunner } from 'typeorm';
import type { SqlDialect } from '../sql/sql-target.js';
import { sqliteHandle } from '../sql/sqlite-handle.js';
import {
  MIGRATIONS_TABLE,
  type MigrationDefinition,
  migrationTimestamp,
} from './migration-definition.js';

/** Arbitrary but fixed key of the PostgreSQL advisory lock that serializes migration runs. */
const POSTGRES_LOCK_KEY = 7_436_810_294_710;
/** How long a MariaDB/MySQL process waits for another one's migration run, in seconds. */
const MYSQL_LOCK_TIMEOUT_SECONDS = 120;

const CREATE_TABLE: Record<SqlDialect, string> = {
  postgres: `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
    id SERIAL PRIMARY KEY, timestamp bigint NOT NULL, name varchar NOT NULL)`,
  mysql: `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
    id int NOT NULL AUTO_INCREMENT PRIMARY KEY, timestamp bigint NOT NULL, name varchar(255) NOT NULL)`,
  sqlite: `CREATE TABLE IF NOT EXISTS ${MIGRATIONS_TABLE} (
    id integer PRIMARY KEY AUTOINCREMENT NOT NULL, timestamp bigint NOT NULL, name varchar NOT NULL)`,
};

/**
 * Runs the package's pending migrations of one dialect under a cross-process lock, so that several
 * processes may start at once: PostgreSQL `pg_advisory_lock`, MariaDB/MySQL `GET_LOCK`, SQLite one
 * `BEGIN IMMEDIATE` transaction. Applied migrations are recorded in `agent_memory_migrations`, in
 * TypeORM's layout, so the TypeORM CLI sees them as run.
 *
 * @returns the names of the migrations this call applied
 */
export async function runPackageMigrations(
  dataSource: DataSource,
  dialect: SqlDialect,
  definitions: readonly MigrationDefinition[],
): Promise<string[]> {
  if (dialect === 'sqlite') return runSqlite(dataSource, definitions);
  const queryRunner = dataSource.createQueryRunner();
  await queryRunner.connect();
  try {
    return dialect === 'postgres'
      ? await runPostgres(queryRunner, definitions)
      : await runMysql(queryRunner, definitions);
  } finally {
    await queryRunner.release();
  }
}

async function runPostgres(
  queryRunner: QueryRunner,
  definitions: readonly MigrationDefinition[],
): Promise<string[]> {
  await queryRunner.query('SELECT pg_advisory_lock($1)', [POSTGRES_LOCK_KEY]);
  try {
    await queryRunner.query(CREATE_TABLE.postgres);
    const pending = await pendingOf(queryRunner, definitions);
    for (const definition of pending) {
      // PostgreSQL DDL is transactional: a migration lands whole or not at all.
      await queryRunner.startTransaction();
      try {
        await applyAndRecord(queryRunner, definition, '$1, $2');
        await queryRunner.commitTransaction();
      } catch (error) {
        await queryRunner.rollbackTransaction();
        throw error;
      }
    }
    return pending.map((definition) => definition.name);
  } finally {
    await queryRunner.query('SELECT pg_advisory_unlock($1)', [POSTGRES_LOCK_KEY]);
  }
}

async function runMysql(
  queryRunner: QueryRunner,
  definitions: readonly MigrationDefinition[],
): Promise<string[]> {
  const [row] = (await queryRunner.query('SELECT GET_LOCK(?, ?) AS acquired', [
    MIGRATIONS_TABLE,
    MYSQL_LOCK_TIMEOUT_SECONDS,
  ])) as Array<{ acquired: number | string | null }>;
  if (Number(row?.acquired) !== 1) {
    throw new Error(
      `Timed out after ${MYSQL_LOCK_TIMEOUT_SECONDS}s waiting for another process's migrations`,
    );
  }
  try {
    await queryRunner.query(CREATE_TABLE.mysql);
    const pending = await pendingOf(queryRunner, definitions);
    // MySQL DDL commits implicitly; every statement is written to be re-runnable instead.
    for (const definition of pending) await applyAndRecord(queryRunner, definition, '?, ?');
    return pending.map((definition) => definition.name);
  } finally {
    await queryRunner.query('SELECT RELEASE_LOCK(?)', [MIGRATIONS_TABLE]);
  }
}

function runSqlite(dataSource: DataSource, definitions: readonly MigrationDefinition[]): string[] {
  const db = sqliteHandle(dataSource);
  const migrate = db.transaction((): string[] => {
    db.exec(CREATE_TABLE.sqlite);
    const tables = [MIGRATIONS_TABLE, appMigrationsTable(dataSource)].filter(
      (table): table is string =>
        table !== undefined &&
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !==
          undefined,
    );
    const done = new Set(
      tables.flatMap((table) =>
        (
          db.prepare(`SELECT name FROM "${table.replace(/"/g, '""')}"`).all() as Array<{
            name: string;
          }>
        ).map((row) => row.name),
      ),
    );
    const record = db.prepare(`INSERT INTO ${MIGRATIONS_TABLE} (timestamp, name) VALUES (?, ?)`);
    const pending = definitions.filter((definition) => !done.has(definition.name));
    for (const definition of pending) {
      for (const statement of definition.up) db.exec(statement);
      record.run(migrationTimestamp(definition), definition.name);
    }
    return pending.map((definition) => definition.name);
  });
  return migrate.immediate();
}

async function pendingOf(
  queryRunner: QueryRunner,
  definitions: readonly MigrationDefinition[],
): Promise<MigrationDefinition[]> {
  const done = await recordedNames(queryRunner);
  return definitions.filter((definition) => !done.has(definition.name));
}

/**
 * The migrations table of the app's own migration set (`migrationsTableName`, default
 * `migrations`), when it is not the package's: an app that put `agentMemoryMigrations(dialect)` in
 * its set has them recorded there, and they count as run.
 */
function appMigrationsTable(dataSource: DataSource): string | undefined {
  const table = dataSource.options.migrationsTableName ?? 'migrations';
  return table === MIGRATIONS_TABLE ? undefined : table;
}

/** The names recorded in the package's migrations table and the app's (those that exist). */
async function recordedNames(queryRunner: QueryRunner): Promise<Set<string>> {
  const done = new Set<string>();
  const { connection } = queryRunner;
  for (const table of [MIGRATIONS_TABLE, appMigrationsTable(connection)]) {
    if (table === undefined || !(await queryRunner.hasTable(table))) continue;
    const rows = (await queryRunner.query(
      `SELECT name FROM ${connection.driver.escape(table)}`,
    )) as Array<{ name: string }>;
    for (const row of rows) done.add(row.name);
  }
  return done;
}

async function applyAndRecord(
  queryRunner: QueryRunner,
  definition: MigrationDefinition,
  placeholders: string,
): Promise<void> {
  for (const statement of definition.up) await queryRunner.query(statement);
  await queryRunner.query(
    `INSERT INTO ${MIGRATIONS_TABLE} (timestamp, name) VALUES (${placeholders})`,
    [migrationTimestamp(definition), definition.name],
  );
}

/**
 * The names of the package's migrations not yet recorded on this database: in the package's table
 * (`agent_memory_migrations`) or the app's own (see {@link appMigrationsTable}). Used to fail fast
 * when `migrationsRun` is `false`.
 */
export async function pendingPackageMigrations(
  dataSource: DataSource,
  definitions: readonly MigrationDefinition[],
): Promise<string[]> {
  const queryRunner = dataSource.createQueryRunner();
  try {
    const done = await recordedNames(queryRunner);
    return definitions.map((definition) => definition.name).filter((name) => !done.has(name));
  } finally {
    await queryRunner.release();
  }
}
