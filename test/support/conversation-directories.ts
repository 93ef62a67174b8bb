import { afterAll, expect } from '@jest/globals';
import { join } from 'node:path';
import type {
  ConversationDirectory,
  ConversationListing,
  ConversationPage,
} from '../../src/modules/agent/conversations/conversation-directory.interface.js';
import { InMemoryConversationDirectory } from '../../src/modules/agent/conversations/in-memory.conversation-directory.js';
import { RedisConversationDirectory } from '../../src/modules/agent/conversations/redis.conversation-directory.js';
import { SqlConversationDirectory } from '../../src/modules/agent/conversations/sql.conversation-directory.js';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import { OwnRedisCluster } from './redis-cluster.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from './test-databases.js';

/** Two directories on one database (two processes' view), or one shared object for memory. */
export type DirectoryPair = () => Promise<[ConversationDirectory, ConversationDirectory]>;

/**
 * The conversation directory on every backend: memory, SQLite, PostgreSQL, MariaDB, Redis and a
 * 3-master Redis Cluster of the suite's own. Call at the top level of a spec (it registers the
 * cleanups with `afterAll`).
 */
export async function directoryBackends(): Promise<Array<[string, DirectoryPair]>> {
  /** One registry per directory instance: two instances never share a connection. */
  const registries: ConnectionRegistry[] = [];
  const registry = () => {
    const created = new ConnectionRegistry();
    registries.push(created);
    return created;
  };
  afterAll(() => Promise.all(registries.map((each) => each.onApplicationShutdown())));
  const cluster = await OwnRedisCluster.start();
  afterAll(() => cluster.stop());

  const sqlPair =
    (target: SqlTarget): DirectoryPair =>
    async () => {
      const open = async () =>
        new SqlConversationDirectory(
          (await registry().acquireSql(target, { migrationsRun: true, schema: AGENT_RUNS_SCHEMA }))
            .value,
        );
      return [await open(), await open()];
    };
  const redisPair =
    (url: string): DirectoryPair =>
    async () => {
      const open = async () =>
        new RedisConversationDirectory(
          (await registry().acquireRedis(url)).value,
          'test:conversations:',
        );
      return [await open(), await open()];
    };
  const sqlitePath = join(tempDir(), 'directory.sqlite');
  return [
    [
      'memory',
      async () => {
        const directory = new InMemoryConversationDirectory();
        return [directory, directory];
      },
    ],
    ['sqlite', sqlPair({ dialect: 'sqlite', path: sqlitePath })],
    ['postgres', sqlPair({ dialect: 'postgres', url: TEST_POSTGRES_URL })],
    ['mysql', sqlPair({ dialect: 'mysql', url: TEST_MYSQL_URL })],
    ['redis', redisPair(TEST_REDIS_URL)],
    ['redis cluster', redisPair(cluster.url)],
  ];
}

/** Every listing of a namespace, following each page's `next`; also counts the pages. */
export async function allPages(
  directory: ConversationDirectory,
  namespace: string,
  page: Omit<ConversationPage, 'after'>,
): Promise<ConversationListing[] & { pages?: number }> {
  const listed: ConversationListing[] & { pages?: number } = [];
  let after: ConversationPage['after'];
  for (let pages = 1; pages < 10_000; pages += 1) {
    const next = await directory.list(namespace, { ...page, ...(after ? { after } : {}) });
    expect(next.conversations.length).toBeLessThanOrEqual(page.limit);
    listed.push(...next.conversations);
    if (!next.next) {
      listed.pages = pages;
      return listed;
    }
    after = next.next;
  }
  throw new Error('paging did not end');
}
