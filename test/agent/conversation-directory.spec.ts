import { afterAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type {
  ConversationDirectory,
  ConversationListing,
} from '../../src/modules/agent/conversations/conversation-directory.interface.js';
import { conversationNamespace } from '../../src/modules/agent/conversations/conversation-directory.interface.js';
import { InMemoryConversationDirectory } from '../../src/modules/agent/conversations/in-memory.conversation-directory.js';
import { RedisConversationDirectory } from '../../src/modules/agent/conversations/redis.conversation-directory.js';
import { SqlConversationDirectory } from '../../src/modules/agent/conversations/sql.conversation-directory.js';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

/** One registry per directory instance: two instances never share a connection. */
const registries: ConnectionRegistry[] = [];
function registry(): ConnectionRegistry {
  const created = new ConnectionRegistry();
  registries.push(created);
  return created;
}
afterAll(() => Promise.all(registries.map((each) => each.onApplicationShutdown())));

/** Two directories on one database (two processes' view), or one shared object for memory. */
type Pair = () => Promise<[ConversationDirectory, ConversationDirectory]>;

const sqlPair =
  (target: SqlTarget): Pair =>
  async () => {
    const open = async () =>
      new SqlConversationDirectory(
        (
          await registry().acquireSql(target, {
            migrationsRun: true,
            schema: AGENT_RUNS_SCHEMA,
          })
        ).value,
      );
    return [await open(), await open()];
  };

/** A 3-master Redis Cluster of the test's own, for the Redis directory's cases. */
const cluster = await OwnRedisCluster.start();
afterAll(() => cluster.stop());

/** Two Redis directories on `url`, each with its own client. */
const redisPair =
  (url: string): Pair =>
  async () => {
    const open = async () =>
      new RedisConversationDirectory(
        (await registry().acquireRedis(url)).value,
        'test:conversations:',
      );
    return [await open(), await open()];
  };

const sqlitePath = join(tempDir(), 'directory.sqlite');
const backends: Array<[string, Pair]> = [
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

/** Every page of a namespace, following the cursor. */
async function allPages(
  directory: ConversationDirectory,
  namespace: string,
  limit: number,
): Promise<ConversationListing[]> {
  const listed: ConversationListing[] = [];
  for (let page = 0; page < 1_000; page += 1) {
    const next = await directory.list(namespace, { limit, after: listed.at(-1) });
    listed.push(...next);
    if (next.length < limit) return listed;
  }
  throw new Error('paging did not end');
}

describe('conversationNamespace', () => {
  it('is what comes before the last slash', () => {
    expect(conversationNamespace('acme/c1')).toBe('acme');
    expect(conversationNamespace('org/team/c1')).toBe('org/team');
    expect(conversationNamespace('c1')).toBe('');
    expect(conversationNamespace('/c1')).toBe('');
  });
});

describe.each(backends)('conversation directory on %s', (_name, pair) => {
  const namespace = () => `ns-${randomUUID()}`;

  it('lists newest activity first, and a touch only moves an entry forward', async () => {
    const [directory] = await pair();
    const ns = namespace();
    await directory.touch(`${ns}/a`, 1_000);
    await directory.touch(`${ns}/b`, 3_000);
    await directory.touch(`${ns}/c`, 2_000);
    await directory.touch(`${ns}/a`, 4_000);
    await directory.touch(`${ns}/b`, 500);
    expect(await directory.list(ns, { limit: 10 })).toEqual([
      { conversationId: `${ns}/a`, lastActiveAt: 4_000 },
      { conversationId: `${ns}/b`, lastActiveAt: 3_000 },
      { conversationId: `${ns}/c`, lastActiveAt: 2_000 },
    ]);
  });

  it('pages with the last listing as cursor: every entry once, ties by id in code-point order', async () => {
    const [directory] = await pair();
    const ns = namespace();
    // 23 conversations over 4 distinct times; the ids differ past the BMP (U+FFFF < U+10000).
    const suffixes = ['a', 'b', 'z', '\uffff', '\u{10000}', '\u{1F600}'];
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) ids.push(`${ns}/${i % 4}-${suffixes[i % suffixes.length]}${i}`);
    await Promise.all(ids.map((id, i) => directory.touch(id, 10_000 + (i % 4))));
    for (const limit of [1, 3, 7, 23, 50]) {
      const listed = await allPages(directory, ns, limit);
      expect(listed.map((entry) => entry.conversationId).sort()).toEqual([...ids].sort());
      for (let i = 1; i < listed.length; i += 1) {
        const [newer, older] = [listed[i - 1]!, listed[i]!];
        expect(newer.lastActiveAt).toBeGreaterThanOrEqual(older.lastActiveAt);
        if (newer.lastActiveAt === older.lastActiveAt)
          expect(
            Buffer.compare(Buffer.from(newer.conversationId), Buffer.from(older.conversationId)),
          ).toBe(1);
      }
    }
  });

  it('keeps namespaces apart, and forgets a removed conversation', async () => {
    const [directory] = await pair();
    const [ns1, ns2] = [namespace(), namespace()];
    await directory.touch(`${ns1}/x`, 1);
    await directory.touch(`${ns2}/x`, 2);
    await directory.touch(`${ns1}/sub/y`, 3);
    expect((await directory.list(ns1, { limit: 10 })).map((e) => e.conversationId)).toEqual([
      `${ns1}/x`,
    ]);
    expect(
      (await directory.list(`${ns1}/sub`, { limit: 10 })).map((e) => e.conversationId),
    ).toEqual([`${ns1}/sub/y`]);
    await directory.remove(`${ns1}/x`);
    expect(await directory.list(ns1, { limit: 10 })).toEqual([]);
    expect(await directory.list(ns2, { limit: 10 })).toHaveLength(1);
  });

  it('keeps the newest time when two instances touch one conversation at once', async () => {
    const [first, second] = await pair();
    const ns = namespace();
    const times = Array.from({ length: 40 }, (_, i) => 50_000 + ((i * 7919) % 40));
    await Promise.all(times.map((at, i) => (i % 2 ? first : second).touch(`${ns}/shared`, at)));
    expect(await second.list(ns, { limit: 5 })).toEqual([
      { conversationId: `${ns}/shared`, lastActiveAt: Math.max(...times) },
    ]);
  });
});
