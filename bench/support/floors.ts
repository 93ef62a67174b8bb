import BetterSqlite3 from 'better-sqlite3';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';

/**
 * The raw-driver floor of one backend: the minimal same work as the store, done with the bare
 * driver on its own connection and table (no validation, no idempotency, no version). Reads parse
 * each body with `JSON.parse`, as any reader of messages must.
 */
export interface Floor {
  /** Appends one message body at position `seq`. */
  insert(conversationId: string, seq: number, body: string): Promise<unknown>;
  /** Appends `bodies` starting after position `from` (seeding). */
  seed(conversationId: string, from: number, bodies: string[]): Promise<unknown>;
  /** Reads the newest 20 messages. */
  tail20(conversationId: string): Promise<unknown>;
  close(): Promise<void>;
}

const FLOOR_TABLE = 'bench_floor_messages';

/** Raw `pg`: prepared INSERT and `ORDER BY seq DESC LIMIT 20` on a table keyed like the store's. */
export async function postgresFloor(url: string): Promise<Floor> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`DROP TABLE IF EXISTS ${FLOOR_TABLE}`);
  await client.query(
    `CREATE TABLE ${FLOOR_TABLE} (conversation_id text COLLATE "C" NOT NULL, seq bigint NOT NULL, body text NOT NULL, PRIMARY KEY (conversation_id, seq))`,
  );
  return {
    insert: (c, seq, body) =>
      client.query(`INSERT INTO ${FLOOR_TABLE} VALUES ($1, $2, $3)`, [c, seq, body]),
    seed: (c, from, bodies) =>
      client.query(
        `INSERT INTO ${FLOOR_TABLE} SELECT $1, $2 + n, b FROM unnest($3::text[]) WITH ORDINALITY AS t(b, n)`,
        [c, from, bodies],
      ),
    tail20: async (c) =>
      parseBodies(
        (
          await client.query(
            `SELECT body FROM ${FLOOR_TABLE} WHERE conversation_id = $1 ORDER BY seq DESC LIMIT 20`,
            [c],
          )
        ).rows,
      ),
    close: async () => {
      await client.query(`DROP TABLE ${FLOOR_TABLE}`);
      await client.end();
    },
  };
}

/** Raw `mysql2`: prepared (`execute`) INSERT and `ORDER BY seq DESC LIMIT 20`. */
export async function mysqlFloor(url: string): Promise<Floor> {
  const connection = await mysql.createConnection({ uri: url, charset: 'utf8mb4' });
  await connection.query(`DROP TABLE IF EXISTS ${FLOOR_TABLE}`);
  await connection.query(
    `CREATE TABLE ${FLOOR_TABLE} (conversation_id VARBINARY(255) NOT NULL, seq BIGINT NOT NULL, body LONGTEXT NOT NULL, PRIMARY KEY (conversation_id, seq)) DEFAULT CHARSET=utf8mb4`,
  );
  return {
    insert: (c, seq, body) =>
      connection.execute(`INSERT INTO ${FLOOR_TABLE} VALUES (?, ?, ?)`, [c, seq, body]),
    seed: (c, from, bodies) =>
      connection.query(`INSERT INTO ${FLOOR_TABLE} VALUES ?`, [
        bodies.map((body, i) => [c, from + i + 1, body]),
      ]),
    tail20: async (c) => {
      const [rows] = await connection.execute(
        `SELECT body FROM ${FLOOR_TABLE} WHERE conversation_id = ? ORDER BY seq DESC LIMIT 20`,
        [c],
      );
      return parseBodies(rows as Array<{ body: string }>);
    },
    close: async () => {
      await connection.query(`DROP TABLE ${FLOOR_TABLE}`);
      await connection.end();
    },
  };
}

/** Raw `better-sqlite3` on its own connection to the same file: prepared INSERT and SELECT. */
export async function sqliteFloor(path: string): Promise<Floor> {
  const db = new BetterSqlite3(path, { timeout: 5000 });
  db.pragma('journal_mode = WAL');
  db.exec(`DROP TABLE IF EXISTS ${FLOOR_TABLE}`);
  db.exec(
    `CREATE TABLE ${FLOOR_TABLE} (conversation_id TEXT NOT NULL, seq INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (conversation_id, seq))`,
  );
  const insert = db.prepare(`INSERT INTO ${FLOOR_TABLE} VALUES (?, ?, ?)`);
  const tail = db
    .prepare(`SELECT body FROM ${FLOOR_TABLE} WHERE conversation_id = ? ORDER BY seq DESC LIMIT 20`)
    .pluck();
  const seedMany = db.transaction((c: string, from: number, bodies: string[]) =>
    bodies.forEach((b, i) => insert.run(c, from + i + 1, b)),
  );
  return {
    insert: async (c, seq, body) => insert.run(c, seq, body),
    seed: async (c, from, bodies) => seedMany(c, from, bodies),
    tail20: async (c) => (tail.all(c) as string[]).map((body) => JSON.parse(body) as unknown),
    close: async () => {
      db.exec(`DROP TABLE ${FLOOR_TABLE}`);
      db.close();
    },
  };
}

/** Raw `ioredis`: RPUSH and `LRANGE -20 -1`. */
export async function redisFloor(url: string): Promise<Floor> {
  const client = new Redis(url);
  const key = (c: string) => `bench:floor:{${c}}`;
  const used = new Set<string>();
  return {
    insert: (c, _seq, body) => (used.add(c), client.rpush(key(c), body)),
    seed: (c, _from, bodies) => (used.add(c), client.rpush(key(c), ...bodies)),
    tail20: async (c) =>
      (await client.lrange(key(c), -20, -1)).map((body) => JSON.parse(body) as unknown),
    close: async () => {
      if (used.size > 0) await client.del(...[...used].map(key));
      await client.quit();
    },
  };
}

function parseBodies(rows: Array<{ body: string }>): unknown[] {
  return rows.map((row) => JSON.parse(row.body) as unknown);
}
