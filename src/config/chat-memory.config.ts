import { registerAs } from '@nestjs/config';
import {
  type ChatMemoryModuleOptions,
  type UriBackendOptions,
  storeUriProblem,
} from 'nest-agent-memory';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readBoolean, readChoice, readString, readUrl, required } from './env.js';
import { readRedisUrl } from './redis-url.js';
import { readRedisKeyPrefix } from './redis.config.js';

/** The chat store options the app builds: always the `backend` form. */
type BackendOptions = Exclude<ChatMemoryModuleOptions, UriBackendOptions>;

/** The chat memory backends the example app can be configured with. */
export const APP_CHAT_BACKENDS = ['memory', 'sqlite', 'postgres', 'mysql', 'redis'] as const;

/** Default SQLite file of the example app. */
export const DEFAULT_SQLITE_PATH = './data/agent-memory.sqlite';

/** `CHAT_MEMORY_BACKEND` (`sqlite`): where the app keeps its history (and its runs beside it). */
export function readChatBackend(env: Env = process.env): (typeof APP_CHAT_BACKENDS)[number] {
  return readChoice(env, 'CHAT_MEMORY_BACKEND', APP_CHAT_BACKENDS, 'sqlite');
}

/**
 * Builds `ChatMemoryModule` options from `CHAT_MEMORY_BACKEND` (`sqlite`), `SQLITE_PATH`,
 * `DATABASE_URL`, `REDIS_URL` and `DB_MIGRATIONS_RUN` (`true`).
 */
export function loadChatMemoryConfig(env: Env = process.env): BackendOptions {
  const backend = readChatBackend(env);
  const migrationsRun = readBoolean(env, 'DB_MIGRATIONS_RUN', true);
  switch (backend) {
    case 'memory':
      return { backend };
    case 'sqlite':
      return {
        backend,
        path: readString(env, 'SQLITE_PATH') ?? DEFAULT_SQLITE_PATH,
        migrationsRun,
      };
    case 'postgres':
    case 'mysql': {
      const schemes =
        backend === 'postgres' ? ['postgres:', 'postgresql:'] : ['mysql:', 'mariadb:'];
      const url = required(
        readUrl(env, 'DATABASE_URL', schemes),
        'DATABASE_URL',
        `when CHAT_MEMORY_BACKEND=${backend}`,
      );
      // Where it points, as the store modules check a URL: a host, or a Unix socket (its path).
      const problem = storeUriProblem(url);
      if (problem !== undefined) throw new ConfigValidationError('DATABASE_URL', problem);
      return { backend, url, migrationsRun };
    }
    case 'redis': {
      const url = required(readRedisUrl(env), 'REDIS_URL', 'when CHAT_MEMORY_BACKEND=redis');
      return { backend, url, keyPrefix: `${readRedisKeyPrefix(env)}chat:` };
    }
  }
}

/** The `chatMemory` config namespace. */
export const chatMemoryConfig = registerAs('chatMemory', () => loadChatMemoryConfig());
