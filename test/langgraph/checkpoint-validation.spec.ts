import { afterAll } from '@jest/globals';
import {
  type CheckpointSaverTestInitializer,
  deltaChannelHistoryTests,
  validate,
} from '@langchain/langgraph-checkpoint-validation';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Lease } from '../../src/common/lease.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { AgentMemoryCheckpointSaver } from '../../src/modules/langgraph/agent-memory-checkpoint-saver.js';
import { openCheckpointSaverIn } from '../../src/modules/langgraph/open-checkpoint-saver.js';
import { LANGGRAPH_SCHEMA } from '../../src/modules/langgraph/schema/langgraph.schema.js';
import { TEST_REDIS_URL, tempDir } from '../support/test-databases.js';
import { type FreshDatabase, createFreshDatabase } from '../support/fresh-database.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import '../support/vitest-soft-expect.js';
import { inDeclaredOrder } from '../support/in-declared-order.js';

/**
 * LangGraph's own checkpointer validation suite, on each backend, in the order it declares its tests
 * (its `list` block reads rows its own earlier tests wrote; jest's `--randomize` would reorder them). The suite asks for isolated
 * storage per checkpointer: a fresh SQLite file, emptied tables in a database of its own on each
 * server, a fresh key prefix on Redis.
 */
const registry = new ConnectionRegistry();

const REDIS_PREFIX = `test:lg:${randomUUID()}:`;
afterAll(async () => {
  await dropKeys(REDIS_PREFIX);
  await registry.onApplicationShutdown();
});
const leases = new Map<AgentMemoryCheckpointSaver, Lease<AgentMemoryCheckpointSaver>>();

async function open(uri: string, keyPrefix?: string): Promise<AgentMemoryCheckpointSaver> {
  const lease = await openCheckpointSaverIn({ uri, ...(keyPrefix ? { keyPrefix } : {}) }, registry);
  leases.set(lease.value, lease);
  return lease.value;
}

async function emptied(uri: string): Promise<AgentMemoryCheckpointSaver> {
  const saver = await open(uri);
  const lease = await registry.acquireSql(
    { dialect: uri.startsWith('postgres') ? 'postgres' : 'mysql', url: uri },
    { migrationsRun: true, schema: LANGGRAPH_SCHEMA },
  );
  try {
    for (const table of ['checkpoints', 'blobs', 'writes'])
      await lease.value.dataSource.query(`DELETE FROM agent_langgraph_${table}`);
  } finally {
    await lease.release();
  }
  return saver;
}

async function destroy(saver: AgentMemoryCheckpointSaver): Promise<void> {
  await leases.get(saver)?.release();
  leases.delete(saver);
}

/** Removes every key under a Redis prefix (this test's own). */
async function dropKeys(prefix: string): Promise<void> {
  const lease = await registry.acquireRedis(TEST_REDIS_URL);
  try {
    const keys = await lease.value.keys(`${prefix}*`);
    if (keys.length > 0) await lease.value.del(...keys);
  } finally {
    await lease.release();
  }
}

/** The whole suite, and its delta-channel history tests (exported, not part of `validate`). */
function validateAll(
  initializer: CheckpointSaverTestInitializer<AgentMemoryCheckpointSaver>,
): void {
  inDeclaredOrder(({ describe }) => {
    validate(initializer);
    describe(`${initializer.checkpointerName} (delta channel history)`, () =>
      deltaChannelHistoryTests(initializer));
  });
}

validateAll({
  checkpointerName: 'nest-agent-memory on memory',
  createCheckpointer: () => open('memory://'),
  destroyCheckpointer: destroy,
});
validateAll({
  checkpointerName: 'nest-agent-memory on SQLite',
  createCheckpointer: () => open(`sqlite:${join(tempDir('langgraph-'), 'checkpoints.sqlite')}`),
  destroyCheckpointer: destroy,
});
// The servers' suites empty the checkpoint tables before each checkpointer: in a database of their
// own, so another file's checkpoints in the shared test database are never deleted under it (the
// LangGraph restart test once lost its thread between its two processes that way).
const own: Partial<Record<'postgres' | 'mysql', FreshDatabase>> = {};
for (const [dialect, name] of [
  ['postgres', 'PostgreSQL'],
  ['mysql', 'MariaDB'],
] as const)
  validateAll({
    checkpointerName: `nest-agent-memory on ${name}`,
    beforeAll: async () => {
      own[dialect] = await createFreshDatabase(dialect);
    },
    // Runs after the file's own afterAll (declared first) has closed the registry's connections.
    afterAll: async () => {
      await own[dialect]?.drop();
    },
    createCheckpointer: () => emptied(own[dialect]!.url),
    destroyCheckpointer: destroy,
  });
let cluster: OwnRedisCluster | undefined;
validateAll({
  checkpointerName: 'nest-agent-memory on a Redis Cluster',
  beforeAll: async () => {
    cluster = await OwnRedisCluster.start();
  },
  beforeAllTimeout: 30_000,
  // Runs after the file's own afterAll (declared first) has closed the registry's clients.
  afterAll: async () => {
    await cluster?.stop();
  },
  createCheckpointer: () => open(cluster!.url, `test:lg:${randomUUID()}:`),
  destroyCheckpointer: destroy,
});
validateAll({
  checkpointerName: 'nest-agent-memory on Redis',
  createCheckpointer: () => open(TEST_REDIS_URL, `${REDIS_PREFIX}${randomUUID()}:`),
  destroyCheckpointer: destroy,
});
