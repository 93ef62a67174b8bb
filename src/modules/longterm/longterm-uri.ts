import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { SqlTarget } from '../connections/sql/sql-target.js';
import { redactUrl } from '../../common/redact-url.js';

/** Where the long-term tier lives, as read from its URI. */
export type LongtermTarget =
  { kind: 'memory' } | { kind: 'sql'; target: SqlTarget } | { kind: 'redis'; url: string };

/** The accepted grammar, for error messages and docs. */
export const LONGTERM_URI_GRAMMAR =
  'memory:// | sqlite:<path> | sqlite::memory: | postgres://host/… | postgresql://host/… | mysql://host/… | redis://host… | rediss://host… (schemes in any case)';

/**
 * Parses `longtermMemory.uri` without loading any driver. An absent or empty URI means the tier is
 * off (`undefined`); anything malformed fails bootstrap, naming the option and the grammar.
 */
export function parseLongtermUri(uri: unknown): LongtermTarget | undefined {
  if (uri === undefined || uri === null || uri === '') return undefined;
  const fail = (problem: string): never => {
    throw new InvalidModuleOptionsError(
      'LongtermMemoryModule',
      'uri',
      `${problem}; accepted: ${LONGTERM_URI_GRAMMAR}`,
    );
  };
  if (typeof uri !== 'string') return fail(`must be a string, got ${typeof uri}`);
  // Schemes are case-insensitive (RFC 3986 §3.1).
  return parseUri(
    uri.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, (scheme) => scheme.toLowerCase()),
    fail,
  );
}

function parseUri(uri: string, fail: (problem: string) => never): LongtermTarget {
  if (uri === 'memory://') return { kind: 'memory' };
  if (uri.startsWith('sqlite:')) {
    const path = uri.slice('sqlite:'.length);
    if (path === '' || path === '//') return fail('"sqlite:" needs a path');
    return {
      kind: 'sql',
      target: { dialect: 'sqlite', path: path.startsWith('//') ? path.slice(2) : path },
    };
  }
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return fail(`"${redactUrl(uri)}" is not a URI`);
  }
  const dialect = SCHEMES[parsed.protocol];
  if (parsed.protocol === 'memory:') return fail('"memory://" takes no host or path');
  if (!dialect) return fail(`unknown scheme "${parsed.protocol}"`);
  // TypeORM hands the URL's parts to the driver, so a host is required here even where a bare
  // driver would default it (postgres:///db): name it, e.g. postgres://user@localhost/db.
  if (!parsed.hostname)
    return fail(
      `"${redactUrl(uri)}" has no host: write ${parsed.protocol}//[user[:password]@]host[:port]/…`,
    );
  return dialect === 'redis'
    ? { kind: 'redis', url: uri }
    : { kind: 'sql', target: { dialect, url: uri } };
}

const SCHEMES: Record<string, 'postgres' | 'mysql' | 'redis' | undefined> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
  'redis:': 'redis',
  'rediss:': 'redis',
};
