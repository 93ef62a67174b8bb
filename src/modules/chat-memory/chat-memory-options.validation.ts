import { assertDataSourceOption } from '../connections/sql/data-source-option.js';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import { assertKnownOptionKeys } from '../../common/options/known-option-keys.js';
import { serverUrlProblem } from '../connections/server-url.js';
import { storeOptionsFromUri } from '../connections/store-uri.js';
import type {
  ChatMemoryBackend,
  ChatMemoryModuleOptions,
  UriBackendOptions,
} from './chat-memory.options.js';

const MODULE = 'ChatMemoryModule';
const BACKENDS: readonly ChatMemoryBackend[] = [
  'memory',
  'sqlite',
  'postgres',
  'mysql',
  'redis',
  'custom',
];
/** The keys each backend accepts. */
const KEYS: Record<ChatMemoryBackend, readonly string[]> = {
  memory: ['backend'],
  sqlite: ['backend', 'path', 'dataSource', 'migrationsRun'],
  postgres: ['backend', 'url', 'poolSize', 'dataSource', 'migrationsRun'],
  mysql: ['backend', 'url', 'poolSize', 'dataSource', 'migrationsRun'],
  redis: ['backend', 'url', 'client', 'keyPrefix'],
  custom: ['backend', 'store'],
};

/**
 * Checks `ChatMemoryModule` options at bootstrap and returns them typed, or throws
 * {@link InvalidModuleOptionsError} naming the option at fault.
 */
export function validateChatMemoryOptions(
  value: unknown,
): Exclude<ChatMemoryModuleOptions, UriBackendOptions> {
  if (typeof value !== 'object' || value === null) fail('options', 'must be an object');
  const options = fromUri(value as Record<string, unknown>);
  const backend = options.backend;
  if (!BACKENDS.includes(backend as ChatMemoryBackend)) {
    fail('backend', `must be one of ${BACKENDS.join(', ')}, got ${JSON.stringify(backend)}`);
  }
  assertKnownOptionKeys(MODULE, options, KEYS[backend as ChatMemoryBackend]);
  switch (backend as ChatMemoryBackend) {
    case 'memory':
      break;
    case 'sqlite':
      if (options.dataSource === undefined)
        assertNonEmptyString(options.path, 'path', "a file path or ':memory:'");
      break;
    case 'postgres':
    case 'mysql':
      if (options.dataSource === undefined) assertUrl(options.url, backend as 'postgres' | 'mysql');
      break;
    case 'redis':
      if (options.client === undefined) assertUrl(options.url, 'redis');
      if (options.keyPrefix !== undefined) assertKeyPrefix(options.keyPrefix);
      break;
    case 'custom':
      if (typeof options.store !== 'function' && !isStoreInstance(options.store)) {
        fail(
          'store',
          'must be a ChatMemoryStore class or an instance with get, add, clear, tail, range and version',
        );
      }
      break;
  }
  assertDataSourceOption(options.dataSource, MODULE, 'dataSource');
  if (options.migrationsRun !== undefined && typeof options.migrationsRun !== 'boolean') {
    fail('migrationsRun', 'must be a boolean');
  }
  return options as unknown as Exclude<ChatMemoryModuleOptions, UriBackendOptions>;
}

/** The `{ uri }` form as the `backend` form it names (the other keys kept). */
function fromUri(options: Record<string, unknown>): Record<string, unknown> {
  if (!('uri' in options)) return options;
  if ('backend' in options) fail('uri', 'give either uri or backend, not both');
  const { uri, ...rest } = options;
  return { ...storeOptionsFromUri(uri, { moduleName: MODULE, option: 'uri' }), ...rest };
}

function assertUrl(value: unknown, backend: 'postgres' | 'mysql' | 'redis'): void {
  assertNonEmptyString(value, 'url', `a ${backend} URL`);
  const problem = serverUrlProblem(value as string, backend);
  if (problem) fail('url', problem);
}

function assertKeyPrefix(value: unknown): void {
  if (typeof value !== 'string' || /[{}]/.test(value)) {
    fail(
      'keyPrefix',
      'must be a string without "{" or "}" (they would break the cluster hash tag)',
    );
  }
}

function assertNonEmptyString(value: unknown, option: string, expected: string): void {
  if (value === undefined) fail(option, `is required: ${expected}`);
  if (typeof value !== 'string' || value.length === 0) fail(option, `must be ${expected}`);
}

function isStoreInstance(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Record<string, unknown>;
  return ['get', 'add', 'clear', 'tail', 'range', 'version'].every(
    (method) => typeof candidate[method] === 'function',
  );
}

function fail(option: string, problem: string): never {
  throw new InvalidModuleOptionsError(MODULE, option, problem);
}
