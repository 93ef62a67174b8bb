import BetterSqlite3 from 'better-sqlite3';
import { Redis } from 'ioredis';
import { taggedRedisId } from '../../src/modules/connections/redis/tagged-redis-id.js';
import mysql from 'mysql2/promise';
import pg from 'pg';

/**
 * The raw-driver floor of one backend: the minimal same work as the store, done with the bare
 * driver on a connection of its own, on the store's own table (same indexes, same size), so the
 * difference is the library's: validation, ids, the lock, the idempotency probe, the version.
 * Prepared statements, as a careful raw user would write them; reads `JSON.parse` each body, as
 * any reader of messages must.
 */
export interface Floor {
  /** Appends one message row at position `seq` of the floor's own conversation. */
  insert(conversationId: string, seq: number, id: string, body: string): Promise<unknown>;
  /** Brings the table to a steady state after seeding (vacuum, statistics), so no background
   * maintenance runs during the measurement. */
  settle(): Promise<unknown>;
  /** Reads the newest 20 messages of a conversation. */
  tail20(conversationId: string): Promise<unknown>;
  /** Removes what the floor wrote and disconnects. */
  close(): Promise<void>;
}

/** Raw `pg`: one INSERT; `ORDER BY seq DESC LIMIT 20`. */
export async function postgresFloor(url: string): Promise<Floor> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const written = new Set<string>();
  return {
    insert: (c, seq, id, body) => {
      written.add(c);
      return client.query({
        name: 'floor_insert',
        text: `INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body) VALUES ($1, $2, $3, 'user', $4)`,
        values: [c, seq, id, body],
      });
    },
    settle: () => client.query('VACUUM (ANALYZE) agent_chat_messages'),
    tail20: async (c) =>
      parseBodies(
        (
          await client.query<{ body: string }>({
            name: 'floor_tail',
            text: 'SELECT body FROM agent_chat_messages WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 20',
            values: [c],
          })
        ).rows,
      ),
    close: async () => {
      for (const c of written)
        await client.query('DELETE FROM agent_chat_messages WHERE conversation_id = $1', [c]);
      await client.end();
    },
  };
}

/** Raw `mysql2`: one INSERT; `ORDER BY seq DESC LIMIT 20` (both through `execute`). */
export async function mysqlFloor(url: string): Promise<Floor> {
  const connection = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  const written = new Set<string>();
  return {
    insert: (c, seq, id, body) => {
      written.add(c);
      return connection.execute(
        `INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body) VALUES (?, ?, ?, 'user', ?)`,
        [c, seq, id, body],
      );
    },
    settle: () => connection.query('ANALYZE TABLE agent_chat_messages, agent_chat_conversations'),
    tail20: async (c) => {
      const [rows] = await connection.execute(
        'SELECT body FROM agent_chat_messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 20',
        [c],
      );
      return parseBodies(rows as Array<{ body: string }>);
    },
    close: async () => {
      for (const c of written)
        await connection.execute('DELETE FROM agent_chat_messages WHERE conversation_id = ?', [c]);
      await connection.end();
    },
  };
}

/**
 * Raw `better-sqlite3` on a connection of its own to the same file: prepared INSERT and SELECT,
 * each commit as durable as the store's (`synchronous = FULL`, one sync of the write-ahead log per
 * commit; a later opener of a WAL file would get NORMAL, which skips it).
 */
export async function sqliteFloor(path: string): Promise<Floor> {
  const db = new BetterSqlite3(path, { timeout: 5000 });
  db.pragma('synchronous = FULL');
  const insert = db.prepare(
    `INSERT INTO agent_chat_messages (conversation_id, seq, message_id, role, body) VALUES (?, ?, ?, 'user', ?)`,
  );
  const tail = db
    .prepare(
      'SELECT body FROM agent_chat_messages WHERE conversation_id = ? ORDER BY seq DESC LIMIT 20',
    )
    .pluck();
  const written = new Set<string>();
  return {
    insert: async (c, seq, id, body) => (written.add(c), insert.run(c, seq, id, body)),
    settle: async () => db.exec('ANALYZE; PRAGMA wal_checkpoint(PASSIVE)'),
    tail20: async (c) => (tail.all(c) as string[]).map((body) => JSON.parse(body) as unknown),
    close: async () => {
      const remove = db.prepare('DELETE FROM agent_chat_messages WHERE conversation_id = ?');
      for (const c of written) remove.run(c);
      db.close();
    },
  };
}

/** Raw `ioredis`: one RPUSH; `LRANGE -20 -1`. */
export async function redisFloor(url: string, keyPrefix: string): Promise<Floor> {
  const client = new Redis(url);
  // The store's own key layout (hash tag from a digest of the id); computed once per conversation,
  // so the floor pays nothing for it.
  const keys = new Map<string, string>();
  const key = (c: string) => {
    let k = keys.get(c);
    if (k === undefined) keys.set(c, (k = `${keyPrefix}${taggedRedisId(c)}:messages`));
    return k;
  };
  const written = new Set<string>();
  return {
    insert: (c, _seq, _id, body) => (written.add(c), client.rpush(key(c), body)),
    settle: async () => undefined,
    tail20: async (c) =>
      (await client.lrange(key(c), -20, -1)).map((body) => JSON.parse(body) as unknown),
    close: async () => {
      if (written.size > 0) await client.del(...[...written].map(key));
      await client.quit();
    },
  };
}

function parseBodies(rows: Array<{ body: string }>): unknown[] {
  return rows.map((row) => JSON.parse(row.body) as unknown);
}
