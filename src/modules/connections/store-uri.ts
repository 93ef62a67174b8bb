import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { SqlTarget } from './sql/sql-target.js';
import { redactUrl } from '../../common/redact-url.js';
import { isRedisClusterUrl, redisClusterUrlProblem } from './redis/redis-cluster-url.js';

/** Where a store lives, as read from its URI. */
export type StoreTarget =
  { kind: 'memory' } | { kind: 'sql'; target: SqlTarget } | { kind: 'redis'; url: string };

/** The same, as a store module's discriminated `backend` options. */
export type StoreBackendOptions =
  | { backend: 'memory' }
  | { backend: 'sqlite'; path: string }
  | { backend: 'postgres' | 'mysql'; url: string }
  | { backend: 'redis'; url: string };

/** Where a URI is given, for errors: the module and the option's name. */
export interface UriPlace {
  moduleName: string;
  option: string;
}

/** The schemes that name `backend`, e.g. `['postgres:', 'postgresql:']`. */
export function schemesOf(backend: 'postgres' | 'mysql' | 'redis'): string[] {
  return Object.keys(SERVER_SCHEMES).filter((scheme) => SERVER_SCHEMES[scheme] === backend);
}

/** The accepted grammar, for error messages and docs. */
export const STORE_URI_GRAMMAR =
  'memory:// | sqlite:<path> | sqlite::memory: | postgres://host/… | postgresql://host/… | mysql://host/… | mariadb://host/… | redis://host… | rediss://host… | redis+cluster://host:port,… | rediss+cluster://host:port,… (schemes in any case)';

/**
 * Parses a store URI — the one form every store module accepts besides its `backend` options —
 * without loading any driver; anything malformed fails bootstrap, naming the option and the grammar.
 */
export function parseStoreUri(uri: unknown, place: UriPlace): StoreTarget {
  const fail = (problem: string): never => {
    throw new InvalidModuleOptionsError(
      place.moduleName,
      place.option,
      `${problem}; accepted: ${STORE_URI_GRAMMAR}`,
    );
  };
  if (typeof uri !== 'string' || uri === '')
    return fail(
      `must be a non-empty string, got ${typeof uri === 'string' ? 'an empty one' : typeof uri}`,
    );
  // Schemes are case-insensitive (RFC 3986 §3.1).
  return parseUri(
    uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, (scheme) => scheme.toLowerCase()),
    fail,
  );
}

/** A store URI as a module's `backend` options (`sqlite:./app.sqlite` → `{ backend: 'sqlite', path }`). */
export function storeOptionsFromUri(uri: unknown, place: UriPlace): StoreBackendOptions {
  const target = parseStoreUri(uri, place);
  if (target.kind === 'memory') return { backend: 'memory' };
  if (target.kind === 'redis') return { backend: 'redis', url: target.url };
  return target.target.dialect === 'sqlite'
    ? { backend: 'sqlite', path: target.target.path }
    : { backend: target.target.dialect, url: target.target.url };
}

function parseUri(uri: string, fail: (problem: string) => never): StoreTarget {
  if (uri === 'memory://') return { kind: 'memory' };
  if (uri.startsWith('sqlite:')) {
    const path = uri.slice('sqlite:'.length);
    if (path === '' || path === '//') return fail('"sqlite:" needs a path');
    return {
      kind: 'sql',
      target: { dialect: 'sqlite', path: path.startsWith('//') ? path.slice(2) : path },
    };
  }
  if (isRedisClusterUrl(uri)) {
    const problem = redisClusterUrlProblem(uri);
    return problem ? fail(`"${redactUrl(uri)}" ${problem}`) : { kind: 'redis', url: uri };
  }
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return fail(`"${redactUrl(uri)}" is not a URI`);
  }
  const dialect = SERVER_SCHEMES[parsed.protocol];
  if (parsed.protocol === 'memory:') return fail('"memory://" takes no host or path');
  if (!dialect) return fail(`unknown scheme "${parsed.protocol}"`);
  // TypeORM hands the URL's parts to the driver, so a host is required here even where a bare
  // driver would default it (postgres:///db): name it, e.g. postgres://user@localhost/db.
  if (!parsed.hostname) return fail(`"${redactUrl(uri)}" ${noHostProblem(parsed.protocol)}`);
  return dialect === 'redis'
    ? { kind: 'redis', url: uri }
    : { kind: 'sql', target: { dialect, url: uri } };
}

/** What a server URL without a host is told (`postgres:///db`), for `uri` and `url` alike. */
export function noHostProblem(protocol: string): string {
  return `has no host: write ${protocol}//[user[:password]@]host[:port]/…`;
}

/** The URL schemes of the server backends, by backend (`postgresql:` is `postgres`, …). */
export const SERVER_SCHEMES: Record<string, 'postgres' | 'mysql' | 'redis' | undefined> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
  'redis:': 'redis',
  'rediss:': 'redis',
  'redis+cluster:': 'redis',
  'rediss+cluster:': 'redis',
};
