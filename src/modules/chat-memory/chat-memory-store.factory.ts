import type { Type } from '@nestjs/common';
import type { ModuleRef } from '@nestjs/core';
import type { DataSource } from 'typeorm';
import { InvalidModuleOptionsError } from '../../common/errors/invalid-module-options.error.js';
import type { ConnectionRegistry, SqlConnection } from '../connections/connection-registry.js';
import { sqlTargetOf } from '../connections/sql/sql-target.js';
import { InMemoryChatMemoryStore } from './backends/in-memory.chat-memory.store.js';
import { MysqlChatMemoryStore } from './backends/mysql.chat-memory.store.js';
import { PostgresChatMemoryStore } from './backends/postgres.chat-memory.store.js';
import { RedisChatMemoryStore } from './backends/redis.chat-memory.store.js';
import { SqliteChatMemoryStore } from './backends/sqlite.chat-memory.store.js';
import { ChatMemoryStoreHandle } from './chat-memory-store.lease.js';
import { CHAT_MEMORY_SCHEMA } from './schema/chat-memory.schema.js';
import { validateChatMemoryOptions } from './chat-memory-options.validation.js';
import type { CustomBackendOptions } from './chat-memory.options.js';
import type { ChatMemoryStore } from './interfaces/chat-memory-store.interface.js';

/**
 * Validates the options and opens the chosen backend, sharing connections through the registry.
 * Runs once per module at bootstrap.
 */
export async function openChatMemoryStore(
  rawOptions: unknown,
  registry: ConnectionRegistry,
  moduleRef: ModuleRef,
): Promise<ChatMemoryStoreHandle> {
  const options = validateChatMemoryOptions(rawOptions);
  switch (options.backend) {
    case 'memory':
      return new ChatMemoryStoreHandle(new InMemoryChatMemoryStore());
    case 'redis': {
      const lease = await registry.useRedis(options);
      return new ChatMemoryStoreHandle(
        new RedisChatMemoryStore(lease.value, options.keyPrefix),
        lease.release,
      );
    }
    case 'custom':
      return openCustomStore(options, moduleRef);
    default: {
      const migrationsRun = options.migrationsRun ?? true;
      if ('dataSource' in options) {
        // Validated: a token was resolved to its DataSource by forRoot.
        const connection = await registry.adoptDataSource(options.dataSource as DataSource, {
          migrationsRun,
          schema: CHAT_MEMORY_SCHEMA,
        });
        if (connection.dialect !== options.backend) {
          throw new InvalidModuleOptionsError(
            'ChatMemoryModule',
            'dataSource',
            `is a ${connection.dialect} DataSource, but backend is "${options.backend}"`,
          );
        }
        return new ChatMemoryStoreHandle(createSqlStore(connection, migrationsRun));
      }
      const target = sqlTargetOf(options);
      const poolSize = 'poolSize' in options ? options.poolSize : undefined;
      const lease = await registry.acquireSql(target, {
        migrationsRun,
        poolSize,
        schema: CHAT_MEMORY_SCHEMA,
      });
      return new ChatMemoryStoreHandle(createSqlStore(lease.value, migrationsRun), lease.release);
    }
  }
}

function createSqlStore(
  { dataSource, dialect }: SqlConnection,
  migrationsRun: boolean,
): ChatMemoryStore {
  switch (dialect) {
    case 'postgres':
      return new PostgresChatMemoryStore(dataSource, { migrationsRun });
    case 'mysql':
      return new MysqlChatMemoryStore(dataSource, { migrationsRun });
    case 'sqlite':
      return new SqliteChatMemoryStore(dataSource, { migrationsRun });
  }
}

/**
 * A custom store given as an instance is used as is; a class is instantiated in this module's
 * context (its dependencies must be global providers or come from `forRootAsync({ imports })`).
 * Either way the store is the value of the module's store token, so Nest runs its lifecycle hooks.
 */
async function openCustomStore(
  options: CustomBackendOptions,
  moduleRef: ModuleRef,
): Promise<ChatMemoryStoreHandle> {
  const store =
    typeof options.store === 'function'
      ? await moduleRef.create(options.store as Type<ChatMemoryStore>)
      : options.store;
  return new ChatMemoryStoreHandle(store);
}
