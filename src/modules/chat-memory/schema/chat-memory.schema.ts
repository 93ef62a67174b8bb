import type { FeatureSchema } from '../../connections/migrations/feature-schema.js';
import { chatMemoryEntitySchemas } from './chat-memory.entities.js';
import { CHAT_MEMORY_MYSQL_MIGRATIONS } from './mysql.migrations.js';
import { CHAT_MEMORY_POSTGRES_MIGRATIONS } from './postgres.migrations.js';
import { CHAT_MEMORY_SQLITE_MIGRATIONS } from './sqlite.migrations.js';

/** The tables of chat memory: the storage layer's conversations and messages. */
export const CHAT_MEMORY_SCHEMA: FeatureSchema = {
  name: 'chat memory',
  migrations: (dialect) =>
    ({
      postgres: CHAT_MEMORY_POSTGRES_MIGRATIONS,
      mysql: CHAT_MEMORY_MYSQL_MIGRATIONS,
      sqlite: CHAT_MEMORY_SQLITE_MIGRATIONS,
    })[dialect],
  entities: chatMemoryEntitySchemas,
};
