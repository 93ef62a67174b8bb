import { registerAs } from '@nestjs/config';
import {
  isRedisClusterUrl,
  type LongtermMemoryModuleOptions,
  storeUriProblem,
} from 'nest-agent-memory';
import { DEFAULT_SQLITE_PATH } from './chat-memory.config.js';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readBoolean, readByteSize, readString } from './env.js';
import { checkRedisClusterUrl } from './redis-url.js';
import { readRedisKeyPrefix } from './redis.config.js';
import { loadRecallConfig } from './recall.config.js';

const VARIABLE = 'LONGTERM_MEMORY_URI';

/** The accepted values of `LONGTERM_MEMORY_URI`, as its errors list them. */
export const LONGTERM_URI_FORMS =
  'off, memory://, sqlite:<path>, postgres://…, postgresql://…, mysql://…, mariadb://…, redis://…, rediss://… or redis+cluster://host:port,…';

/** Where a long-term URI points: its kind decides whether migrations apply. */
type UriKind = 'memory' | 'sql' | 'redis';

const SERVER_SCHEMES: Record<string, UriKind | undefined> = {
  'postgres:': 'sql',
  'postgresql:': 'sql',
  'mysql:': 'sql',
  'mariadb:': 'sql',
  'redis:': 'redis',
  'rediss:': 'redis',
  'redis+cluster:': 'redis',
  'rediss+cluster:': 'redis',
};

/**
 * Builds `LongtermMemoryModule` options from `LONGTERM_MEMORY_URI` (default `sqlite:` +
 * `SQLITE_PATH`, the chat store's file; `off` turns the tier off: no `uri`), for SQL stores
 * `DB_MIGRATIONS_RUN` (`true`), `LONGTERM_MAX_VALUE_BYTES` (the module's 256 KiB when unset), and
 * recall's embedder (`RECALL_EMBEDDER`, see `loadRecallConfig`).
 */
export function loadLongtermConfig(env: Env = process.env): LongtermMemoryModuleOptions {
  const raw = readString(env, VARIABLE);
  if (raw?.toLowerCase() === 'off') return {};
  const uri = raw ?? `sqlite:${readString(env, 'SQLITE_PATH') ?? DEFAULT_SQLITE_PATH}`;
  // Unset: the module's own limit (256 KiB).
  const maxValueBytes =
    readString(env, 'LONGTERM_MAX_VALUE_BYTES') === undefined
      ? {}
      : { maxValueBytes: readByteSize(env, 'LONGTERM_MAX_VALUE_BYTES', 0, 1, 1024 ** 3) };
  const recall = loadRecallConfig(env);
  const extra = { ...maxValueBytes, ...(recall ? { recall } : {}) };
  const kind = kindOfUri(uri);
  if (kind === 'sql')
    return { uri, migrationsRun: readBoolean(env, 'DB_MIGRATIONS_RUN', true), ...extra };
  return kind === 'redis'
    ? { uri, keyPrefix: `${readRedisKeyPrefix(env)}longterm:`, ...extra }
    : { uri, ...extra };
}

/** Checks a store URI as the module reads it; errors show it with its password hidden. */
function kindOfUri(uri: string): UriKind {
  const fail = (problem: string): never => {
    throw new ConfigValidationError(VARIABLE, `${problem}; accepted: ${LONGTERM_URI_FORMS}`);
  };
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(uri)?.[1]?.toLowerCase();
  if (scheme === undefined) return fail('has no scheme');
  const rest = uri.slice(scheme.length + 1);
  if (scheme === 'memory')
    return rest === '//' ? 'memory' : fail('memory:// takes no host or path');
  if (scheme === 'sqlite')
    return rest === '' || rest === '//' ? fail('sqlite: needs a path') : 'sql';
  const kind = SERVER_SCHEMES[`${scheme}:`] ?? fail(`unknown scheme "${scheme}:"`);
  if (isRedisClusterUrl(uri)) {
    checkRedisClusterUrl(uri, VARIABLE);
    return kind;
  }
  // The rest as the module reads it: a URL, with a host or (SQL) a Unix socket.
  const problem = storeUriProblem(uri);
  return problem === undefined ? kind : fail(problem);
}

/** The `longterm` config namespace. */
export const longtermConfig = registerAs('longterm', () => loadLongtermConfig());
