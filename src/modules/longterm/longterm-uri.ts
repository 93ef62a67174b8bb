import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { SqlTarget } from '../connections/sql/sql-target.js';

/** Where the long-term tier lives, as read from its URI. */
export type LongtermTarget =
  { kind: 'memory' } | { kind: 'sql'; target: SqlTarget } | { kind: 'redis'; url: string };

/** The accepted grammar, for error messages and docs. */
export const LONGTERM_URI_GRAMMAR =
  'memory:// | sqlite:<path> | sqlite::memory: | postgres://… | postgresql://… | mysql://… | redis://… | rediss://…';

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
    return fail(`"${redact(uri)}" is not a URI`);
  }
  if (!parsed.hostname) return fail(`"${redact(uri)}" has no host`);
  switch (parsed.protocol) {
    case 'postgres:':
    case 'postgresql:':
      return { kind: 'sql', target: { dialect: 'postgres', url: uri } };
    case 'mysql:':
    case 'mariadb:':
      return { kind: 'sql', target: { dialect: 'mysql', url: uri } };
    case 'redis:':
    case 'rediss:':
      return { kind: 'redis', url: uri };
    default:
      return fail(`unknown scheme "${parsed.protocol}"`);
  }
}

function redact(uri: string): string {
  return uri.replace(/\/\/[^@/]*@/, '//***@');
}
