import type { RedisClient } from '../../connections/redis/redis-client.js';
import type { DataSource } from 'typeorm';

/**
 * Where a built-in chat store keeps its data. Other features that must outlive a process whenever
 * the history does — the agent's run records and run cache — default to the same backend and
 * connection.
 */
export type ChatStoreBacking =
  | { kind: 'memory' }
  | {
      kind: 'sql';
      dataSource: DataSource;
      /** Whether the package runs migrations on this database (the module's `migrationsRun`). */
      migrationsRun: boolean;
    }
  | { kind: 'redis'; client: RedisClient };

/** A store that says where it keeps its data (every built-in backend does). */
export interface BackedChatMemoryStore {
  readonly backing: ChatStoreBacking;
}

/** The backing of `store`, if it tells (`undefined` for a custom store that does not). */
export function backingOf(store: unknown): ChatStoreBacking | undefined {
  return (store as Partial<BackedChatMemoryStore> | undefined)?.backing;
}
