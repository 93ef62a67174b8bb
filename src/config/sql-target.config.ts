import type { SqlDialect } from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import { loadChatMemoryConfig } from './chat-memory.config.js';
import type { Env } from './env.js';

/** A SQL database: a server by URL, or an SQLite file. */
export type SqlTarget =
  { dialect: Exclude<SqlDialect, 'sqlite'>; url: string } | { dialect: 'sqlite'; path: string };

/**
 * The SQL database of the example app's chat memory, from the same variables
 * (`CHAT_MEMORY_BACKEND`, `DATABASE_URL`, `SQLITE_PATH`); `undefined` when chat memory is not on
 * SQL (memory, Redis). The app opens it with `TypeOrmModule`.
 */
export function appSqlTarget(env: Env = process.env): SqlTarget | undefined {
  const options = loadChatMemoryConfig(env);
  if (options.backend === 'sqlite' && 'path' in options)
    return { dialect: 'sqlite', path: options.path };
  if ((options.backend === 'postgres' || options.backend === 'mysql') && 'url' in options)
    return { dialect: options.backend, url: options.url };
  return undefined;
}

/** The app's SQL database for the TypeORM CLI (`ormconfig.ts`): an error when there is none. */
export function loadSqlTarget(env: Env = process.env): SqlTarget {
  const target = appSqlTarget(env);
  if (target) return target;
  const options = loadChatMemoryConfig(env);
  throw new ConfigValidationError(
    'CHAT_MEMORY_BACKEND',
    `must be sqlite, postgres or mysql for the TypeORM CLI, got "${options.backend}"`,
  );
}
