/**
 * A separate OS process writing to an SQLite chat store, for the multi-process race test.
 * argv: <path> <conversationId> <writer> <count>. Opens the store (running migrations), prints
 * `ready`, waits for a line on stdin, writes, then prints the versions its adds returned as JSON on
 * its last line (Nest's logger may print before).
 */
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteChatMemoryStore } from '../../src/modules/chat-memory/backends/sqlite.chat-memory.store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { CHAT_MEMORY_SCHEMA } from '../../src/modules/chat-memory/schema/chat-memory.schema.js';

const [path, conversationId, writer, count] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
];
const registry = new ConnectionRegistry();
const lease = await registry.acquireSql(
  { dialect: 'sqlite', path },
  { migrationsRun: true, schema: CHAT_MEMORY_SCHEMA },
);
const store = new SqliteChatMemoryStore(lease.value.dataSource);
process.stdout.write('\nready\n');
await once(process.stdin, 'data');
const versions: number[] = [];
for (let i = 0; i < Number(count); i += 1) {
  const { version } = await store.add(conversationId, [
    { id: `w${writer}-${i}`, role: 'user', content: `${writer}:${i}` },
  ]);
  versions.push(version);
  // A pause between writes, as real traffic has, so the processes' writes interleave.
  await sleep(Math.random() * 3);
}
await registry.onApplicationShutdown();
process.stdout.write(`\n${JSON.stringify(versions)}\n`);
process.exit(0);
