/**
 * nest-agent-memory: durable, policy-driven memory for LLM agents, as NestJS modules.
 * This file is the package's public API; inside the package, import by path.
 */

// Errors shared by every module
export { AgentMemoryError } from './common/errors/agent-memory.error.js';
export { InvalidArgumentError } from './common/errors/invalid-argument.error.js';
export { InvalidModuleOptionsError } from './common/errors/invalid-module-options.error.js';
export { MigrationsNotRunError } from './common/errors/migrations-not-run.error.js';
export { MissingDriverError } from './common/errors/missing-driver.error.js';

// Connections and migrations
export { ConnectionsModule } from './modules/connections/connections.module.js';
export {
  type ConnectionHealth,
  ConnectionRegistry,
  type SqlConnection,
} from './modules/connections/connection-registry.js';
export type { ConnectionLease } from './modules/connections/connection-lease.js';
export type { SqlDialect, SqlTarget } from './modules/connections/sql/sql-target.js';
export type { DataSourceTuning } from './modules/connections/sql/data-source-options.js';
export { agentMemoryEntitySchemas } from './modules/connections/sql/package-entities.js';
export { MIGRATIONS_TABLE } from './modules/connections/migrations/migration-definition.js';
export {
  agentMemoryMigrations,
  type TypeormMigrationClass,
} from './modules/connections/migrations/typeorm-migrations.js';

// Conversation memory: storage layer
export { ChatMemoryModule } from './modules/chat-memory/chat-memory.module.js';
export {
  CHAT_MEMORY_STORE,
  getChatMemoryStoreToken,
} from './modules/chat-memory/chat-memory.constants.js';
export { InjectChatMemoryStore } from './modules/chat-memory/chat-memory.decorators.js';
export type {
  ChatMemoryBackend,
  ChatMemoryModuleExtras,
  ChatMemoryModuleOptions,
  CustomBackendOptions,
  MemoryBackendOptions,
  RedisClientBackendOptions,
  RedisUrlBackendOptions,
  SqlBackendOptions,
  SqlDataSourceBackendOptions,
  SqliteBackendOptions,
  SqlUrlBackendOptions,
} from './modules/chat-memory/chat-memory.options.js';
export type {
  AddMessagesOptions,
  AddMessagesResult,
  ChatMemoryStore,
} from './modules/chat-memory/interfaces/chat-memory-store.interface.js';
export {
  CHAT_ROLES,
  type ChatMessage,
  type ChatRole,
  type StoredChatMessage,
  type ToolCall,
} from './modules/chat-memory/interfaces/chat-message.interface.js';
export { ConversationVersionConflictError } from './modules/chat-memory/errors/conversation-version-conflict.error.js';
export { InvalidMessageError } from './modules/chat-memory/errors/invalid-message.error.js';
export {
  BaseChatMemoryStore,
  type AppendOutcome,
} from './modules/chat-memory/backends/base-chat-memory.store.js';
export { InMemoryChatMemoryStore } from './modules/chat-memory/backends/in-memory.chat-memory.store.js';
export { PostgresChatMemoryStore } from './modules/chat-memory/backends/postgres.chat-memory.store.js';
export { MysqlChatMemoryStore } from './modules/chat-memory/backends/mysql.chat-memory.store.js';
export { SqliteChatMemoryStore } from './modules/chat-memory/backends/sqlite.chat-memory.store.js';
export {
  DEFAULT_CHAT_REDIS_KEY_PREFIX,
  RedisChatMemoryStore,
} from './modules/chat-memory/backends/redis.chat-memory.store.js';
export type { PreparedMessage } from './modules/chat-memory/validation/prepared-message.js';
