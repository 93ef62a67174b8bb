import type { MigrationInterface, QueryRunner } from 'typeorm';
import type { MigrationDefinition } from './migration-definition.js';

/** A TypeORM migration class, as `DataSourceOptions.migrations` accepts it. */
export type TypeormMigrationClass = new () => MigrationInterface;

/** Wraps migration definitions as TypeORM migration classes (for a DataSource or the CLI). */
export function toTypeormMigrations(
  definitions: readonly MigrationDefinition[],
): TypeormMigrationClass[] {
  return definitions.map(toTypeormMigration);
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
