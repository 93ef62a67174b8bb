import type { Type } from '@nestjs/common';
import type { RedisClient } from '../connections/redis/redis-client.js';
import type { DataSourceOption } from '../connections/sql/data-source-option.js';
import type { ChatMemoryStore } from './interfaces/chat-memory-store.interface.js';

/** Options shared by the SQL backends. */
export interface SqlBackendOptions {
  /**
   * Run the package's migrations at start, under a cross-process lock (default `true`). With
   * `false` you run them yourself (`agentMemoryMigrations(dialect)`, or the TypeORM CLI with
   * `ormconfig.ts`); the module then checks at start that they were run.
   */
  migrationsRun?: boolean;
}

/** Process-local storage: for tests, demos and single-process apps. Not durable. */
export interface MemoryBackendOptions {
  backend: 'memory';
}

/** An SQLite file (or `':memory:'`), opened by the package through TypeORM and better-sqlite3. */
export interface SqliteBackendOptions extends SqlBackendOptions {
  backend: 'sqlite';
  /** File path, or `':memory:'` for a private in-memory database. */
  path: string;
}

/** A PostgreSQL or MariaDB/MySQL server, reached by URL through a pool the package owns. */
export interface SqlUrlBackendOptions extends SqlBackendOptions {
  backend: 'postgres' | 'mysql';
  /** e.g. `postgres://user@host:5432/db` or `mysql://root@host:3306/db`. */
  url: string;
  /** Pool size (default 10). Ignored if another module already opened this database. */
  poolSize?: number;
}

/**
 * A TypeORM DataSource that you own: an initialized one, or in `forRoot` its injection token —
 * `getDataSourceToken()` (or `getDataSourceToken(name)`) of `@nestjs/typeorm` shares the app's
 * `TypeOrmModule` connection and pool. The package never closes it, and talks to it with raw SQL,
 * so it need not know the package's entities.
 */
export interface SqlDataSourceBackendOptions extends SqlBackendOptions {
  backend: 'postgres' | 'mysql' | 'sqlite';
  dataSource: DataSourceOption;
}

/** Redis, reached by URL through a client the package owns. */
export interface RedisUrlBackendOptions {
  backend: 'redis';
  url: string;
  /** Prefix of every key (default `agent-memory:chat:`); must not contain `{` or `}`. */
  keyPrefix?: string;
}

/** A connected ioredis client that you own; the package never closes it. */
export interface RedisClientBackendOptions {
  backend: 'redis';
  client: RedisClient;
  /** Prefix of every key (default `agent-memory:chat:`); must not contain `{` or `}`. */
  keyPrefix?: string;
}

/**
 * Your own `ChatMemoryStore`. A class is instantiated by the module with DI: its dependencies must
 * be global providers or come from `forRootAsync({ imports })`. An instance is used as is (to reuse
 * a provider you already have, inject it in `forRootAsync` and return it here).
 */
export interface CustomBackendOptions {
  backend: 'custom';
  store: Type<ChatMemoryStore> | ChatMemoryStore;
}

/**
 * Any built-in backend by URI, the form every store module takes: `memory://`,
 * `sqlite:./data/app.sqlite` (or `sqlite::memory:`), `postgres://…`, `mysql://…`, `redis://…`.
 * The other keys are those of the backend the URI names.
 */
export interface UriBackendOptions {
  uri: string;
  keyPrefix?: string;
  migrationsRun?: boolean;
  poolSize?: number;
}

/**
 * Options of `ChatMemoryModule.forRoot`: a `uri`, or a union discriminated by `backend`. Validated
 * at bootstrap.
 */
export type ChatMemoryModuleOptions =
  | UriBackendOptions
  | MemoryBackendOptions
  | SqliteBackendOptions
  | SqlUrlBackendOptions
  | SqlDataSourceBackendOptions
  | RedisUrlBackendOptions
  | RedisClientBackendOptions
  | CustomBackendOptions;

/** The backends `ChatMemoryModule` accepts. */
export type ChatMemoryBackend = Exclude<ChatMemoryModuleOptions, UriBackendOptions>['backend'];

/** Module extras, next to the options (not part of `forRootAsync`'s factory result). */
export interface ChatMemoryModuleExtras {
  /** Registers a named store, injected with `@InjectChatMemoryStore(name)`. */
  name?: string;
  /** Make the store injectable everywhere without importing the module (default `true`). */
  isGlobal?: boolean;
}
