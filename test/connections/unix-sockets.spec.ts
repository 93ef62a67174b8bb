import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { appDataSourceOptions } from '../../src/config/database.config.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { backingOf } from '../../src/modules/chat-memory/interfaces/chat-store-backing.interface.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { LONGTERM_MEMORY_STORE } from '../../src/modules/longterm/longterm.constants.js';
import { parseLongtermUri } from '../../src/modules/longterm/longterm-backend.factory.js';
import { LONGTERM_SCHEMA } from '../../src/modules/longterm/schema/longterm.schema.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import type { LongtermMemoryStore } from '../../src/modules/longterm/interfaces/longterm-store.interface.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL } from '../support/test-databases.js';

/**
 * PostgreSQL and MariaDB over their Unix sockets, named in the URL (`?host=/dir` for `pg`,
 * `?socketPath=/file` for MySQL): the sockets are the servers' own, asked over TCP first.
 */
const opened: TestingModule[] = [];
const sockets: { postgres?: string; mysql?: string } = {};

/** `tcpUrl` with its host replaced by `host` (empty: none) and `query` added. */
function socketUrl(tcpUrl: string, host: string, query: string): string {
  const url = new URL(tcpUrl);
  const user = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${host ? user : ''}${host}${url.pathname}?${query}`;
}

beforeAll(async () => {
  const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  await client.connect();
  const shown = await client.query<{ unix_socket_directories: string }>(
    'SHOW unix_socket_directories',
  );
  await client.end();
  sockets.postgres = shown.rows[0]!.unix_socket_directories.split(',')[0]!.trim();
  const connection = await mysql.createConnection(TEST_MYSQL_URL);
  const [rows] = await connection.query<mysql.RowDataPacket[]>('SELECT @@socket AS socket');
  await connection.end();
  sockets.mysql = String(rows[0]!['socket']);
});

afterAll(async () => {
  await Promise.all(opened.splice(0).map((moduleRef) => moduleRef.close()));
});

async function boot(module: Parameters<typeof Test.createTestingModule>[0]['imports']) {
  const moduleRef = await Test.createTestingModule({ imports: module }).compile();
  opened.push(moduleRef);
  await moduleRef.init();
  return moduleRef;
}

/** Where the store's own connection comes from, as the server sees it. */
async function peerOf(dataSource: DataSource, dialect: 'postgres' | 'mysql'): Promise<unknown> {
  const [row] = (await dataSource.query(
    dialect === 'postgres'
      ? 'SELECT inet_server_addr() AS peer'
      : 'SELECT host AS peer FROM information_schema.processlist WHERE id = CONNECTION_ID()',
  )) as Array<{ peer: unknown }>;
  return row!.peer;
}

describe.each([
  // No host: `pg` reads the user from the query.
  [
    'postgres' as const,
    '?host=/dir&user=…, no host',
    () =>
      socketUrl(
        TEST_POSTGRES_URL,
        '',
        `host=${sockets.postgres}&user=${new URL(TEST_POSTGRES_URL).username}`,
      ),
  ],
  [
    'postgres' as const,
    'user@localhost, ?host=/dir',
    () => socketUrl(TEST_POSTGRES_URL, 'localhost', `host=${sockets.postgres}`),
  ],
  [
    'mysql' as const,
    'user@localhost, ?socketPath=/file',
    () => socketUrl(TEST_MYSQL_URL, 'localhost', `socketPath=${sockets.mysql}`),
  ],
])('%s over its Unix socket (%s)', (dialect, _form, url) => {
  it("ChatMemoryModule's url: stores and reads over the socket, not TCP", async () => {
    const moduleRef = await boot([ChatMemoryModule.forRoot({ backend: dialect, url: url() })]);
    const store = moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    const conversation = `socket-${dialect}-${Date.now()}`;
    await store.add(conversation, [{ role: 'user', content: 'over the socket' }]);
    expect((await store.get(conversation)).map((message) => message.content)).toEqual([
      'over the socket',
    ]);
    const backing = backingOf(store);
    if (backing?.kind !== 'sql') throw new Error('expected an SQL store');
    // No server address on PostgreSQL's side; MariaDB names a socket client `localhost`.
    expect(await peerOf(backing.dataSource, dialect)).toBe(
      dialect === 'postgres' ? null : 'localhost',
    );
    await store.clear(conversation);
  });

  it("LongtermMemoryModule's uri: saves and loads over the socket, not TCP", async () => {
    const moduleRef = await boot([LongtermMemoryModule.forRoot({ uri: url() })]);
    const store = moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE);
    const entity = `socket-${dialect}-${Date.now()}`;
    await store.save({ entityId: entity, key: 'k', value: { via: 'socket' }, seq: 1 });
    expect((await store.load(entity, 'k'))?.value).toEqual({ via: 'socket' });
    await store.deleteEntity(entity);
    // The store's connection is the registry's only one, shared when asked for its URI again.
    const target = parseLongtermUri(url());
    if (target?.kind !== 'sql') throw new Error('expected an SQL target');
    const registry = moduleRef.get(ConnectionRegistry);
    const lease = await registry.acquireSql(target.target, {
      migrationsRun: false,
      schema: LONGTERM_SCHEMA,
    });
    try {
      expect(await registry.checkHealth()).toHaveLength(1);
      expect(await peerOf(lease.value.dataSource, dialect)).toBe(
        dialect === 'postgres' ? null : 'localhost',
      );
    } finally {
      await lease.release();
    }
  });
});

describe("the example app's own DataSource (DATABASE_URL) over a Unix socket", () => {
  it.each([
    [
      'postgres' as const,
      () => socketUrl(TEST_POSTGRES_URL, 'localhost', `host=${sockets.postgres}`),
    ],
    ['mysql' as const, () => socketUrl(TEST_MYSQL_URL, 'localhost', `socketPath=${sockets.mysql}`)],
  ])('%s: connects through the socket, not TCP', async (dialect, url) => {
    const dataSource = new DataSource({
      ...appDataSourceOptions({ dialect, url: url() }),
      entities: [],
      migrations: [],
    });
    await dataSource.initialize();
    try {
      expect(await peerOf(dataSource, dialect)).toBe(dialect === 'postgres' ? null : 'localhost');
    } finally {
      await dataSource.destroy();
    }
  });
});
