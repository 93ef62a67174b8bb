import { afterEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { SqlConversationDirectory } from '../../src/modules/agent/conversations/sql.conversation-directory.js';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { SqliteChatMemoryStore } from '../../src/modules/chat-memory/backends/sqlite.chat-memory.store.js';
import { CHAT_MEMORY_SCHEMA } from '../../src/modules/chat-memory/schema/chat-memory.schema.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { tempDir } from '../support/test-databases.js';

/** The next round of the event loop: its first write commits at once, the ones after it wait. */
const nextRound = () => new Promise((resolve) => setTimeout(resolve, 5));

/**
 * On SQLite concurrent writes commit in groups (a write waits for its round's group once another
 * committed in the round): a write asked for after one that waits must still land after it.
 */
describe('SQLite writes of one connection, in the order they were asked for', () => {
  const registry = new ConnectionRegistry();
  afterEach(() => registry.onApplicationShutdown());

  async function open(schema: typeof CHAT_MEMORY_SCHEMA) {
    const path = join(tempDir(), 'order.sqlite');
    const lease = await registry.acquireSql(
      { dialect: 'sqlite', path },
      { migrationsRun: true, schema },
    );
    return lease.value;
  }

  it("a conversation cleared after a turn's append was asked for stays empty", async () => {
    const store = new SqliteChatMemoryStore((await open(CHAT_MEMORY_SCHEMA)).dataSource);
    await store.add('c1', [{ role: 'user', content: 'turn 1' }]);
    await nextRound();
    await store.add('other', [{ role: 'user', content: 'x' }]); // the round's first: at once
    const appended = store.add('c1', [{ role: 'assistant', content: 'turn 2 reply' }]); // waits
    await store.clear('c1');
    await appended;
    expect(await store.tail('c1', 10)).toEqual([]);
    expect(await store.version('c1')).toBe(0);
  });

  it('a conversation removed after a touch was asked for stays removed from the directory', async () => {
    const directory = new SqlConversationDirectory(await open(AGENT_RUNS_SCHEMA));
    await directory.touch('c1', 1, { title: 'old' });
    await nextRound();
    await directory.touch('other', 2); // the round's first: at once
    const touched = directory.touch('c1', 3, { preview: 'hi' }); // waits
    await directory.remove('c1');
    await touched;
    const { conversations } = await directory.list('', { limit: 10 });
    expect(conversations.map((listing) => listing.conversationId)).toEqual(['other']);
  });
});
