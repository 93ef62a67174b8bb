import { realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { SECRET_PARAM } from '../../../common/redact-url.js';

/** The SQL dialects the library speaks. `mysql` means MariaDB ≥ 10.5 or MySQL 8. */
export type SqlDialect = 'postgres' | 'mysql' | 'sqlite';

/** A SQL database the registry can open: a server by URL, or an SQLite file. */
export type SqlTarget =
  { dialect: 'postgres' | 'mysql'; url: string } | { dialect: 'sqlite'; path: string };

/** The path that names SQLite's private in-memory database. */
export const SQLITE_IN_MEMORY = ':memory:';

const DEFAULT_PORTS: Record<string, string> = {
  postgres: '5432',
  mysql: '3306',
  redis: '6379',
  rediss: '6379',
};

const SCHEME_ALIASES: Record<string, string> = {
  postgresql: 'postgres',
  mariadb: 'mysql',
};

/**
 * Normalizes a connection URL so that spellings of the same server share one pool: scheme aliases
 * (`postgresql:` → `postgres:`), lower-case host, explicit default port, sorted query parameters.
 * The credentials are part of the identity (two passwords never share a connection) but only as a
 * digest: the key never holds a password.
 */
export function normalizeConnectionUrl(url: string): string {
  const parsed = new URL(url);
  const rawScheme = parsed.protocol.slice(0, -1).toLowerCase();
  const scheme = SCHEME_ALIASES[rawScheme] ?? rawScheme;
  const port = parsed.port || DEFAULT_PORTS[scheme] || '';
  const auth =
    parsed.username || parsed.password
      ? `${parsed.username}:${credentialDigest(parsed.username, parsed.password)}@`
      : '';
  // A password given in the query (`?password=…`, as `pg` reads one) is identity too, as a digest.
  for (const [name, value] of [...parsed.searchParams])
    if (SECRET_PARAM.test(name)) parsed.searchParams.set(name, digestOf(`${name}\u0000${value}`));
  parsed.searchParams.sort();
  const query = parsed.searchParams.toString();
  const path = parsed.pathname === '/' ? '' : parsed.pathname;
  return `${scheme}://${auth}${parsed.hostname.toLowerCase()}${port ? `:${port}` : ''}${path}${query ? `?${query}` : ''}`;
}

/**
 * Resolves an SQLite path to the real path of its file (following symlinks of the directory and,
 * when it exists, of the file), so that one file gets one connection per registry.
 */
export function resolveSqlitePath(path: string): string {
  if (path === SQLITE_IN_MEMORY) return path;
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    try {
      return join(realpathSync(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

/** The registry key of a target: its normalized URL, or `sqlite:` + the file's real path. */
export function sqlTargetKey(target: SqlTarget): string {
  return target.dialect === 'sqlite'
    ? `sqlite:${resolveSqlitePath(target.path)}`
    : normalizeConnectionUrl(target.url);
}

/** A digest standing for a user name and password in a connection key. */
function credentialDigest(username: string, password: string): string {
  return digestOf(`${decodeURIComponent(username)}\u0000${decodeURIComponent(password)}`);
}

/** A short digest of `text` (the query's values come decoded already: not decoded again). */
function digestOf(text: string): string {
  return `sha256-${createHash('sha256').update(text).digest('base64url').slice(0, 22)}`;
}

/** A store module's SQL backend options (`{ backend: 'sqlite', path }` or `{ backend, url }`) as a target. */
export function sqlTargetOf(
  options: { backend: 'sqlite'; path: string } | { backend: 'postgres' | 'mysql'; url: string },
): SqlTarget {
  return options.backend === 'sqlite'
    ? { dialect: 'sqlite', path: options.path }
    : { dialect: options.backend, url: options.url };
}
