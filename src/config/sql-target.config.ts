import type { SqlDialect } from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import { loadChatMemoryConfig } from './chat-memory.config.js';
import type { Env } from './env.js';

/** A SQL database: a server by URL, or an SQLite file. */
export type SqlTarget =
  { dialect: Exclude<SqlDialect, 'sqlite'>; url: string } | { dialect: 'sqlite'; path: string };

/**
 * The SQL database the example app's chat memory uses, from the same variables
 * (`CHAT_MEMORY_BACKEND`, `DATABASE_URL`, `SQLITE_PATH`). Used by `ormconfig.ts`.
 */
export function loadSqlTarget(env: Env = process.env): SqlTarget {
  const options = loadChatMemoryConfig(env);
  if (options.backend === 'sqlite' && 'path' in options)
    return { dialect: 'sqlite', path: options.path };
  if ((options.backend === 'postgres' || options.backend === 'mysql') && 'url' in options) {
    return { dialect: options.backend, url: options.url };
  }
  throw new ConfigValidationError(
    'CHAT_MEMORY_BACKEND',
    `must be sqlite, postgres or mysql for the TypeORM CLI, got "${options.backend}"`,
  );
}
