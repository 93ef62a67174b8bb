import type { EntitySchemaOptions } from 'typeorm';
import type { SqlDialect } from '../sql/sql-target.js';
import type { MigrationDefinition } from './migration-definition.js';

/**
 * What one feature (chat memory, long-term memory, agent runs) owns in a SQL database: its tables'
 * migrations and TypeORM entity schemas, per dialect. A feature hands it to the connection layer when
 * it opens a database (as `TypeOrmModule.forFeature` hands its entities), so each module migrates
 * only its own tables; the package's full set is collected above every feature.
 */
export interface FeatureSchema {
  /** Names the feature in logs and errors, e.g. `chat memory`. */
  readonly name: string;
  /** Its migrations for a dialect, oldest first. */
  migrations(dialect: SqlDialect): readonly MigrationDefinition[];
  /** Its tables as plain entity schema options (`new EntitySchema(options)` makes an entity). */
  entities(dialect: SqlDialect): EntitySchemaOptions<unknown>[];
}
