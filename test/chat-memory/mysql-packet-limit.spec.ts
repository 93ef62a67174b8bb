import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { MysqlChatMemoryStore } from '../../src/modules/chat-memory/backends/mysql.chat-memory.store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { MysqlLongtermStore } from '../../src/modules/longterm/backends/mysql.longterm.store.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { TEST_MYSQL_URL } from '../support/test-databases.js';
import { CHAT_MEMORY_SCHEMA } from '../../src/modules/chat-memory/schema/chat-memory.schema.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';

/** MariaDB's default max_allowed_packet is 16 MiB: 20 MB does not fit. */
const TOO_BIG = 'x'.repeat(20 * 1024 * 1024);

describe('MariaDB: a request over max_allowed_packet', () => {
  const registry = new ConnectionRegistry();
  let chat: MysqlChatMemoryStore;
  let longterm: MysqlLongtermStore;
  beforeAll(async () => {
    const target = { dialect: 'mysql' as const, url: TEST_MYSQL_URL };
    const { value: connection } = await registry.acquireSql(target, {
      migrationsRun: true,
      poolSize: 2,
      schema: CHAT_MEMORY_SCHEMA,
    });
    await registry.acquireSql(target, { migrationsRun: true, schema: LONGTERM_SCHEMA });
    chat = new MysqlChatMemoryStore(connection.dataSource);
    // Values up to 64 MiB allowed here: the packet limit, not the value limit, is under test.
    longterm = new MysqlLongtermStore(connection.dataSource, { maxValueBytes: 64 * 1024 * 1024 });
  });
  afterAll(() => registry.onApplicationShutdown());

  it('is refused before it is sent, naming the limit, and the next calls work (chat add)', async () => {
    const conversationId = `packet-${Date.now()}`;
    for (let round = 0; round < 4; round += 1) {
      const error = await rejectionOf(
        chat.add(conversationId, [{ role: 'user', content: TOO_BIG }]),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain('max_allowed_packet');
      await chat.add(conversationId, [{ role: 'user', content: `small ${round}` }]);
    }
    expect(await chat.version(conversationId)).toBe(4);
  });

  it('is refused before it is sent, naming the limit, and the next calls work (long-term saveMany)', async () => {
    const entityId = `packet-${Date.now()}`;
    for (let round = 1; round <= 4; round += 1) {
      const error = await rejectionOf(
        longterm.saveMany([{ entityId, key: 'big', value: TOO_BIG, seq: round }]),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain('max_allowed_packet');
      expect(await longterm.save({ entityId, key: 'small', value: round, seq: round })).toEqual({
        applied: true,
      });
    }
    expect((await longterm.load(entityId, 'small'))?.value).toBe(4);
    await longterm.deleteEntity(entityId);
  });
});
