import type { EntitySchemaOptions } from 'typeorm';
import { runEntryEntitySchemas } from '../../agent/runs/run-entries.entity.js';
import { chatMemoryEntitySchemas } from '../../chat-memory/entities/chat-memory.entities.js';
import { longtermEntitySchemas } from '../../longterm/backends/longterm.entities.js';
import type { SqlDialect } from './sql-target.js';

/**
 * Every table of the package as TypeORM entity schema options, for one dialect. Plain options, so
 * that importing them does not load TypeORM; `new EntitySchema(options)` turns each into an entity.
 */
export function agentMemoryEntitySchemas(dialect: SqlDialect): EntitySchemaOptions<unknown>[] {
  return [
    ...chatMemoryEntitySchemas(dialect),
    ...runEntryEntitySchemas(dialect),
    ...longtermEntitySchemas(dialect),
  ];
}
