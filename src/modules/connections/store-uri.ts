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
  'memory:// | sqlite:<path> | sqlite::memory: | postgres://host/… | postgresql://host/… | mysql://host/… | mariadb://host/… | redis://host… | rediss://host… | redis+cluster://host:port,… | rediss+cluster://host:port,… (schemes in any case; a Unix socket: postgres:///db?host=/its/directory&user=…, mysql://user@localhost/db?socketPath=/its/file)';

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
  const read = readUri(uri);
  return 'problem' in read ? fail(read.problem) : read;
}

/**
 * What is wrong with a store URI as the store modules read it (their `uri` option), in the words of
 * their bootstrap error (a password never shown), or `undefined` when it will do: for an app that
 * checks its configuration before the modules start.
 */
export function storeUriProblem(uri: string): string | undefined {
  const read = readUri(uri);
  return 'problem' in read ? read.problem : undefined;
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

function readUri(given: string): StoreTarget | { problem: string } {
  // Schemes are case-insensitive (RFC 3986 §3.1).
  const uri = given.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, (scheme) => scheme.toLowerCase());
  const fail = (problem: string) => ({ problem });
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
  // driver would default it (postgres:///db): name it, e.g. postgres://user@localhost/db, or name
  // the Unix socket.
  const problem = addressProblem(parsed);
  if (problem !== undefined) return fail(`"${redactUrl(uri)}" ${problem}`);
  return dialect === 'redis'
    ? { kind: 'redis', url: uri }
    : { kind: 'sql', target: { dialect, url: uri } };
}

/**
 * What is wrong with where a server URL points, or `undefined`: no host (nor, on PostgreSQL, a Unix
 * socket instead: `postgres:///chat?host=/var/run/postgresql&user=app`, `pg` reading the user and
 * password from the query too), or a MySQL `socketPath` that is not an absolute path (the driver
 * would go over TCP instead). A MySQL URL keeps a host with its socket
 * (`mysql://app@localhost/chat?socketPath=…`): a URL cannot name a user without a host, and TypeORM
 * reads a MySQL user nowhere else.
 */
export function addressProblem(url: URL): string | undefined {
  const dialect = SERVER_SCHEMES[url.protocol];
  const socket = socketParameter(url);
  if (dialect === 'mysql' && socket !== undefined && !socket.startsWith('/'))
    return 'names a socketPath that is not an absolute path: write ?socketPath=/its/file';
  // `postgres:chat` has no authority at all (no `//`): not a server's address.
  const hasAuthority = url.href.startsWith(`${url.protocol}//`);
  if (hasAuthority && url.hostname) return undefined;
  if (hasAuthority && dialect === 'postgres' && unixSocketOf(url) !== undefined) return undefined;
  return noHostProblem(url.protocol);
}

/** What a server URL without a host is told (`postgres:///db`), for `uri` and `url` alike. */
function noHostProblem(protocol: string): string {
  const dialect = SERVER_SCHEMES[protocol];
  const socket =
    dialect === 'postgres'
      ? ', or name a Unix socket: ?host=/its/directory&user=…'
      : dialect === 'mysql'
        ? ' (a Unix socket: host localhost and ?socketPath=/its/file)'
        : '';
  return `has no host: write ${protocol}//[user[:password]@]host[:port]/…${socket}`;
}

/**
 * The Unix socket a PostgreSQL or MariaDB/MySQL URL names in its query, if any: PostgreSQL's `host`
 * (the socket's directory, as `pg` and libpq read it) and MySQL's `socketPath` (the socket file),
 * the last one where the parameter repeats (as the drivers read it).
 */
function unixSocketOf(url: URL): string | undefined {
  const socket = socketParameter(url);
  return socket?.startsWith('/') ? socket : undefined;
}

/** The value of the query parameter that names a socket on the URL's backend (the last one). */
function socketParameter(url: URL): string | undefined {
  const dialect = SERVER_SCHEMES[url.protocol];
  const name = dialect === 'postgres' ? 'host' : dialect === 'mysql' ? 'socketPath' : undefined;
  return name === undefined ? undefined : url.searchParams.getAll(name).at(-1);
}

/**
 * What a TypeORM `DataSource` needs beside a PostgreSQL or MariaDB/MySQL `url` to connect through
 * the Unix socket the URL names: `{ socketPath }` for MySQL (`?socketPath=/run/mysqld/mysqld.sock`,
 * which TypeORM does not read: it takes a MySQL URL's host, port, user, password and database
 * only), `{}` otherwise (`pg` reads PostgreSQL's `?host=/dir` from the URL itself). For an app that
 * builds its own `DataSource` from such a URL: `{ type: 'mysql', url, ...sqlSocketOptions(url) }`.
 */
export function sqlSocketOptions(url: string): { socketPath?: string } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return {};
  }
  const socketPath = SERVER_SCHEMES[parsed.protocol] === 'mysql' ? unixSocketOf(parsed) : undefined;
  return socketPath === undefined ? {} : { socketPath };
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
