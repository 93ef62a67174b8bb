import type { FeatureSchema } from '../../connections/migrations/feature-schema.js';
import { langgraphEntitySchemas } from './langgraph.entities.js';
import { langgraphMigrations } from './langgraph.migrations.js';

/** The tables of the LangGraph checkpointer: checkpoints, channel blobs and pending writes. */
export const LANGGRAPH_SCHEMA: FeatureSchema = {
  name: 'LangGraph checkpoints',
  migrations: langgraphMigrations,
  entities: langgraphEntitySchemas,
};
