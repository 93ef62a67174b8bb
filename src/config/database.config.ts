import { EntitySchema, type DataSourceOptions } from 'typeorm';
import {
  agentMemoryEntitySchemas,
  agentMemoryMigrations,
  sqlSocketOptions,
} from 'nest-agent-memory';
import type { SqlTarget } from './sql-target.config.js';

/**
 * The TypeORM connection of the example app's SQL database, shared by `TypeOrmModule` (the app)
 * and `ormconfig.ts` (the CLI): the package's entities and migrations, recorded in the package's
 * table so the modules (which run them at start, under a lock, unless `DB_MIGRATIONS_RUN=false`)
 * and the CLI agree. MariaDB gets `utf8mb4`; SQLite WAL and a 5 s busy timeout.
 */
export function appDataSourceOptions(target: SqlTarget): DataSourceOptions {
  const common = {
    entities: agentMemoryEntitySchemas(target.dialect).map((options) => new EntitySchema(options)),
    migrations: agentMemoryMigrations(target.dialect),
    migrationsTableName: 'agent_memory_migrations',
    migrationsRun: false,
    synchronize: false,
    logging: false,
  } as const;
  switch (target.dialect) {
    case 'postgres':
      return { ...common, type: 'postgres', url: target.url };
    case 'mysql':
      return {
        ...common,
        type: 'mysql',
        url: target.url,
        // A Unix socket named in the URL (`?socketPath=…`), which TypeORM does not read itself.
        ...sqlSocketOptions(target.url),
        charset: 'utf8mb4',
        supportBigNumbers: true,
      };
    case 'sqlite':
      return {
        ...common,
        type: 'better-sqlite3',
        database: target.path,
        enableWAL: true,
        timeout: 5_000,
      };
  }
}
