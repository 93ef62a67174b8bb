import { Injectable, Logger, type OnApplicationShutdown, type LoggerService } from '@nestjs/common';
import type { RedisOptions } from 'ioredis';
import type { DataSource } from 'typeorm';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { MigrationsNotRunError } from '../../common/errors/migrations-not-run.error.js';
import {
  loadOptionalDependencies,
  loadOptionalDependency,
} from '../../common/load-optional-dependency.js';
import { redactUrl } from '../../common/redact-url.js';
import { logRedisErrors } from './redis/redis-error-log.js';
import { createRedisClient, isRedisCluster, type RedisClient } from './redis/redis-client.js';
import { redisTargetKey } from './redis/redis-target-key.js';
import type { ConnectionLease } from './connection-lease.js';
import { dialectOfDataSource } from './sql/dialect-of-data-source.js';
import { closeDataSource } from './sql/close-data-source.js';
import type { FeatureSchema } from './migrations/feature-schema.js';
import { SharedResourcePool } from './shared-resource-pool.js';
import { pendingPackageMigrations, runPackageMigrations } from './migrations/migration-runner.js';
import type { DataSourceTuning } from './sql/data-source-options.js';
import { type SqlDialect, type SqlTarget, sqlTargetKey } from './sql/sql-target.js';

/** A pooled SQL connection: the package's TypeORM DataSource for one database. */
export interface SqlConnection {
  readonly dataSource: DataSource;
  readonly dialect: SqlDialect;
}

/** What a feature asks of a SQL database when it opens it. */
export interface SchemaOptions {
  /** The feature's tables: its migrations are run (or checked) on the database. */
  schema: FeatureSchema;
  /**
   * Run the feature's pending migrations (once per database, feature and registry) before
   * returning; with `false`, check that they ran and fail with `MigrationsNotRunError` if not.
   */
  migrationsRun: boolean;
}

/** Options of {@link ConnectionRegistry.acquireSql}. */
export interface AcquireSqlOptions extends DataSourceTuning, SchemaOptions {}

const DRIVER_PACKAGES: Record<SqlDialect, string> = {
  postgres: 'pg',
  mysql: 'mysql2',
  sqlite: 'better-sqlite3',
};

/**
 * The application's one owner of database and Redis connections. Connections are keyed
 * by normalized URL (SQLite: the file's real path) and reference-counted, so the chat store, the
 * long-term store, the run cache and the queue of one app on one database share one pool, and one
 * SQLite file has one connection. Whatever is still open is closed on application shutdown.
 *
 * A DataSource or Redis client that the user passes in is never owned: the registry may run
 * migrations on it, but it never closes it.
 */
@Injectable()
export class ConnectionRegistry implements OnApplicationShutdown {
  private logger: Pick<LoggerService, 'log' | 'warn'> = new Logger(ConnectionRegistry.name);
  private readonly dataSources = new SharedResourcePool<SqlConnection>();
  private readonly redisClients = new SharedResourcePool<RedisClient>();
  /** DataSources users handed over: checked for health, never closed. */
  private readonly adopted = new Map<DataSource, SqlConnection>();
  /** Per DataSource, the features whose migrations this registry ran (or is running) on it. */
  private readonly migrations = new WeakMap<DataSource, Map<FeatureSchema, Promise<void>>>();
  /**
   * Sends the registry's log lines (migrations applied, failed health checks, Redis errors) to
   * `logger` instead of Nest's `Logger` — for use outside Nest.
   */
  useLogger(logger: Pick<LoggerService, 'log' | 'warn'>): void {
    this.logger = logger;
  }

  /** Numbers the Redis clients opened, for log lines that must not name hosts. */
  private redisOpened = 0;

  /** Opens (or shares) the package's DataSource for `target`. */
  async acquireSql(
    target: SqlTarget,
    options: AcquireSqlOptions,
  ): Promise<ConnectionLease<SqlConnection>> {
    const lease = await this.dataSources.acquire(
      sqlTargetKey(target),
      () => this.openDataSource(target, options),
      ({ dataSource, dialect }) => closeDataSource(dataSource, dialect),
    );
    try {
      await this.prepareSchema(lease.value, options);
    } catch (error) {
      await lease.release();
      throw error;
    }
    return lease;
  }

  /**
   * Adopts a DataSource the user owns (e.g. the app's `TypeOrmModule` one): checks that the package
   * supports its driver and, if asked, runs the package's migrations on it once.
   */
  async adoptDataSource(dataSource: DataSource, options: SchemaOptions): Promise<SqlConnection> {
    const connection = { dataSource, dialect: dialectOfDataSource(dataSource) };
    if (!dataSource.isInitialized) {
      throw new InvalidArgumentError(
        'dataSource',
        'must be initialized before it is given to a memory module (await dataSource.initialize())',
      );
    }
    const { charset: optionCharset, extra } = dataSource.options as {
      charset?: string;
      extra?: { charset?: string };
    };
    const charset = optionCharset ?? extra?.charset;
    if (connection.dialect === 'mysql' && !/^utf8mb4/i.test(charset ?? '')) {
      throw new InvalidArgumentError(
        'dataSource',
        `must use charset utf8mb4 on MariaDB/MySQL (it has ${charset ?? "TypeORM's default, utf8"}, which refuses 4-byte characters such as emoji)`,
      );
    }
    await this.prepareSchema(connection, options);
    this.adopted.set(dataSource, connection);
    return connection;
  }

  /** Opens (or shares) a Redis client for `url` (a `redis+cluster://` URL opens a `Cluster`). */
  async acquireRedis(
    url: string,
    options: RedisOptions = {},
  ): Promise<ConnectionLease<RedisClient>> {
    return this.redisClients.acquire(
      redisTargetKey(url),
      () => this.openRedis(url, options),
      (client) => closeRedis(client),
    );
  }

  /**
   * The Redis client of a module's options: a client the user passes is used as is and never
   * closed by the package (its lease releases nothing); a URL is opened or shared as above.
   */
  async useRedis(
    target: { client: RedisClient } | { url: string },
  ): Promise<ConnectionLease<RedisClient>> {
    if ('client' in target) return { value: target.client, release: async () => undefined };
    return this.acquireRedis(target.url);
  }

  /**
   * Pings every connection the package uses (`SELECT 1`, Redis `PING`) — those the registry holds
   * and the DataSources it was handed — for readiness checks. Each answer carries an opaque label —
   * the kind (`postgres`, `mysql`, `sqlite`, `redis`), with a number when there are several — and
   * never a host, path, user or error: those go to the log.
   */
  async checkHealth(): Promise<ConnectionHealth[]> {
    const sql = [
      ...(await this.dataSources.openResources()),
      ...[...this.adopted.values()].map((resource, index) => ({
        key: `adopted DataSource ${index + 1}`,
        resource,
      })),
    ].map(({ key, resource }) => ({
      key,
      kind: resource.dialect as string,
      ping: () => resource.dataSource.query('SELECT 1'),
    }));
    const redis = (await this.redisClients.openResources()).map(({ key, resource }) => ({
      key,
      kind: 'redis',
      ping: () => resource.ping(),
    }));
    const targets = [...sql, ...redis];
    return Promise.all(
      targets.map(({ key, kind, ping }, index) => {
        const sameKind = targets.filter((target) => target.kind === kind);
        const label =
          sameKind.length > 1 ? `${kind}-${sameKind.indexOf(targets[index]!) + 1}` : kind;
        return this.probe(label, key, ping);
      }),
    );
  }

  /** Closes every connection that is still open. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([this.dataSources.closeAll(), this.redisClients.closeAll()]);
  }

  private async openDataSource(
    target: SqlTarget,
    tuning: DataSourceTuning,
  ): Promise<SqlConnection> {
    const neededBy = `the ${target.dialect} backend`;
    const [typeorm] = await loadOptionalDependencies<[typeof import('typeorm'), unknown]>(
      ['typeorm', DRIVER_PACKAGES[target.dialect]],
      neededBy,
    );
    const { buildDataSourceOptions } = await import('./sql/data-source-options.js');
    const dataSource = new typeorm.DataSource(buildDataSourceOptions(target, tuning));
    await dataSource.initialize();
    return { dataSource, dialect: target.dialect };
  }

  /** Runs the feature's migrations, or checks that the user ran them. */
  private async prepareSchema(
    connection: SqlConnection,
    { schema, migrationsRun }: SchemaOptions,
  ): Promise<void> {
    const definitions = schema.migrations(connection.dialect);
    if (migrationsRun) return this.migrate(connection, schema);
    const pending = await pendingPackageMigrations(connection.dataSource, definitions);
    if (pending.length > 0) throw new MigrationsNotRunError(connection.dialect, pending);
  }

  private migrate(connection: SqlConnection, schema: FeatureSchema): Promise<void> {
    let byFeature = this.migrations.get(connection.dataSource);
    if (!byFeature) this.migrations.set(connection.dataSource, (byFeature = new Map()));
    let migrated = byFeature.get(schema);
    if (!migrated) {
      migrated = this.runMigrations(connection, schema);
      byFeature.set(schema, migrated);
      migrated.catch(() => byFeature.delete(schema));
    }
    return migrated;
  }

  private async runMigrations(
    { dataSource, dialect }: SqlConnection,
    schema: FeatureSchema,
  ): Promise<void> {
    const applied = await runPackageMigrations(dataSource, dialect, schema.migrations(dialect));
    if (applied.length > 0)
      this.logger.log(`Applied ${dialect} migrations of ${schema.name}: ${applied.join(', ')}`);
  }

  private async probe(
    label: string,
    key: string,
    ping: () => Promise<unknown>,
  ): Promise<ConnectionHealth> {
    const started = performance.now();
    try {
      await ping();
      return { name: label, healthy: true, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      this.logger.warn(`Health check of ${label} (${redactUrl(key)}) failed: ${String(error)}`);
      return { name: label, healthy: false, latencyMs: Math.round(performance.now() - started) };
    }
  }

  private async openRedis(url: string, options: RedisOptions): Promise<RedisClient> {
    const ioredis = await loadOptionalDependency<typeof import('ioredis')>(
      'ioredis',
      'the redis backend',
    );
    const client = createRedisClient(ioredis, url, { lazyConnect: true, ...options });
    logRedisErrors(client, `redis#${++this.redisOpened}`, this.logger);
    let failure: Error | undefined;
    const noteFailure = (error: Error) => (failure ??= error);
    // A cluster's own error ("Failed to refresh slots cache") names no node; its nodes' errors do.
    let nodeFailure: string | undefined;
    const noteNodeFailure = (error: Error, node: string) =>
      (nodeFailure ??= `${node}: ${error.message}`);
    client.on('error', noteFailure);
    client.on('node error', noteNodeFailure);
    try {
      await client.connect();
    } catch (error) {
      // A client that failed to connect (e.g. a wrong password) would otherwise keep reconnecting;
      // the server's own answer (WRONGPASS, ECONNREFUSED, …) says more than "Connection is closed".
      client.disconnect();
      const cause = failure ?? error;
      if (!isRedisCluster(client)) throw cause;
      throw new Error(
        `Could not connect to the Redis Cluster ${redactUrl(url)}: ${(cause as Error).message}${nodeFailure ? ` (${nodeFailure})` : ''}`,
        { cause },
      );
    } finally {
      client.off('error', noteFailure);
      client.off('node error', noteNodeFailure);
    }
    return client;
  }
}

/** The outcome of pinging one connection: safe to show anyone (details go to the log). */
export interface ConnectionHealth {
  /** An opaque label: `postgres`, `mysql`, `sqlite` or `redis`, numbered (`redis-2`) if several. */
  name: string;
  healthy: boolean;
  latencyMs: number;
}

async function closeRedis(client: RedisClient): Promise<void> {
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
