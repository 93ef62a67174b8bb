import type { DynamicModule } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { resolve } from 'node:path';
import { ChatMemoryModule, LongtermMemoryModule } from 'nest-agent-memory';
import type { DataSource } from 'typeorm';
import { chatMemoryConfig } from '../../config/chat-memory.config.js';
import { appDataSourceOptions } from '../../config/database.config.js';
import { longtermConfig } from '../../config/longterm.config.js';
import type { SqlTarget } from '../../config/sql-target.config.js';

/** Tries of the app's database connection at start after the first (`@nestjs/typeorm`'s retry). */
export const DATABASE_CONNECT_RETRIES = 2;
/** Wait between them. */
export const DATABASE_RETRY_DELAY_MS = 1_000;

/**
 * The memory stores of the example app. When chat memory is on SQL, the app opens that database
 * with `TypeOrmModule` (options from `src/config/database.config.ts`, as `ormconfig.ts` uses them)
 * and hands the connection to chat memory — and so to the agent's runs — and to long-term memory
 * when `LONGTERM_MEMORY_URI` names the same database: one pool, owned and closed by TypeORM.
 * Otherwise each module opens its backend from its own variables.
 */
export function memoryStoreModules(database: SqlTarget | undefined): DynamicModule[] {
  if (!database)
    return [
      ChatMemoryModule.forRootAsync({
        inject: [chatMemoryConfig.KEY],
        useFactory: (options: ConfigType<typeof chatMemoryConfig>) => options,
      }),
      LongtermMemoryModule.forRootAsync({
        inject: [longtermConfig.KEY],
        useFactory: (options: ConfigType<typeof longtermConfig>) => options,
      }),
    ];
  return [
    // A database that does not answer fails the start in about 2 s (3 tries, 1 s apart), not
    // TypeORM's default 9 tries 3 s apart.
    TypeOrmModule.forRootAsync({
      useFactory: () => ({
        ...appDataSourceOptions(database),
        retryAttempts: DATABASE_CONNECT_RETRIES,
        retryDelay: DATABASE_RETRY_DELAY_MS,
      }),
    }),
    ChatMemoryModule.forRootAsync({
      inject: [chatMemoryConfig.KEY, getDataSourceToken()],
      useFactory: (options: ConfigType<typeof chatMemoryConfig>, dataSource: DataSource) => ({
        backend: database.dialect,
        dataSource,
        migrationsRun: 'migrationsRun' in options ? options.migrationsRun : true,
      }),
    }),
    LongtermMemoryModule.forRootAsync({
      inject: [longtermConfig.KEY, getDataSourceToken()],
      useFactory: (options: ConfigType<typeof longtermConfig>, dataSource: DataSource) => {
        if (!namesDatabase(options.uri, database)) return options;
        // The same database: the app's connection instead of the URI.
        return { ...options, uri: undefined, dataSource };
      },
    }),
  ];
}

/** Whether a long-term URI names the app's SQL database (the same file, or the same URL). */
function namesDatabase(uri: string | undefined, database: SqlTarget): boolean {
  if (uri === undefined) return false;
  if (database.dialect === 'sqlite')
    return (
      uri.startsWith('sqlite:') && resolve(uri.slice('sqlite:'.length)) === resolve(database.path)
    );
  return uri === database.url;
}
