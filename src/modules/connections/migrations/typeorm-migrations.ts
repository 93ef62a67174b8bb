import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { SqlDialect } from '../sql/sql-target.js';
import type { MigrationDefinition } from './migration-definition.js';
import { packageMigrations } from './package-migrations.js';

/** A TypeORM migration class, as `DataSourceOptions.migrations` accepts it. */
export type TypeormMigrationClass = new () => MigrationInterface;

/**
 * Wraps the package's migrations of one dialect as TypeORM migration classes, for users who run
 * migrations themselves (`migrationsRun: false`): add them to your DataSource's `migrations`, or use
 * the top-level `ormconfig.ts` with the TypeORM CLI.
 */
export function agentMemoryMigrations(dialect: SqlDialect): TypeormMigrationClass[] {
  return packageMigrations(dialect).map(toTypeormMigration);
}

function toTypeormMigration(definition: MigrationDefinition): TypeormMigrationClass {
  const migration = class implements MigrationInterface {
    readonly name = definition.name;

    async up(queryRunner: QueryRunner): Promise<void> {
      for (const statement of definition.up) await queryRunner.query(statement);
    }

    async down(queryRunner: QueryRunner): Promise<void> {
      for (const statement of definition.down) await queryRunner.query(statement);
    }
  };
  Object.defineProperty(migration, 'name', { value: definition.name });
  return migration;
}
