import type { Database } from 'better-sqlite3';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { longtermRedisKeys } from '../../src/modules/longterm/backends/redis-keys.js';
import {
  unpackEmbedding,
  dot,
} from '../../src/modules/longterm/recall/embedding/embedding-bytes.js';
import { Bm25Index } from '../../src/modules/longterm/recall/bm25-index.js';
import { TextAnalyzer } from '../../src/modules/longterm/recall/text-analyzer.js';

/** A backend's raw full-text and vector queries on the rows the store wrote: the floors. */
export interface RecallFloor {
  /** The backend's own full-text query, best 10. */
  text(entityId: string, words: string[]): Promise<unknown>;
  /**
   * Every vector of the entity read raw (keys and vectors, no values) and compared in JS, then the
   * values of the best 10 read.
   */
  vector(entityId: string, query: Float32Array): Promise<unknown>;
  close(): Promise<void>;
}

const top10 = (scored: Array<{ key: string; score: number }>) =>
  scored.sort((a, b) => b.score - a.score).slice(0, 10);

/** The values of rows as a store returns them: parsed from their JSON (the store decodes them too). */
const decoded = (rows: Array<{ value: string }>) =>
  rows.map((row) => ({ ...row, value: JSON.parse(row.value) as unknown }));

/** PostgreSQL: `@@` on the GIN index, ordered by `ts_rank`. */
export async function postgresFloor(url: string): Promise<RecallFloor> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    text: async (entityId, words) =>
      (
        await client.query({
          name: 'floor_text',
          text: `SELECT key, value, seq, updated_at, expires_at FROM agent_longterm_records
            WHERE entity_id = $1 AND search_vector @@ to_tsquery('simple', $2)
            ORDER BY ts_rank(search_vector, to_tsquery('simple', $2)) DESC LIMIT 10`,
          values: [entityId, words.join(' | ')],
        })
      ).rows,
    vector: async (entityId, query) => {
      const { rows } = await client.query({
        name: 'floor_vector',
        text: 'SELECT key, embedding FROM agent_longterm_records WHERE entity_id = $1 AND embedding IS NOT NULL',
        values: [entityId],
      });
      const best = top10(
        rows.map((row: { key: string; embedding: Buffer }) => ({
          key: row.key,
          score: dot(query, unpackEmbedding(row.embedding)),
        })),
      );
      return decoded(
        (
          await client.query({
            name: 'floor_values',
            text: 'SELECT key, value FROM agent_longterm_records WHERE entity_id = $1 AND key = ANY($2::text[])',
            values: [entityId, best.map((hit) => hit.key)],
          })
        ).rows,
      );
    },
    close: () => client.end(),
  };
}

/**
 * PostgreSQL with pgvector: the text floor as on PostgreSQL; the vector floor is pgvector's own
 * nearest-neighbour query on the HNSW-indexed expression, 10 rows back.
 */
export async function pgvectorFloor(url: string, dimensions: number): Promise<RecallFloor> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // PGlite runs one session for every connection: each floor names its statements anew.
  const tag = (pgvectorFloors += 1);
  return {
    text: async (entityId, words) =>
      (
        await client.query({
          name: `floor_text_${tag}`,
          text: `SELECT key, value, seq, updated_at, expires_at FROM agent_longterm_records
            WHERE entity_id = $1 AND search_vector @@ to_tsquery('simple', $2)
            ORDER BY ts_rank(search_vector, to_tsquery('simple', $2)) DESC LIMIT 10`,
          values: [entityId, words.join(' | ')],
        })
      ).rows,
    vector: async (entityId, query) =>
      (
        await client.query({
          name: `floor_pgvector_${tag}`,
          text: `SELECT key, value FROM agent_longterm_records
            WHERE entity_id = $1 AND vector_dims(embedding_vector) = ${dimensions}
            ORDER BY embedding_vector::vector(${dimensions}) <=> $2::vector(${dimensions}) LIMIT 10`,
          values: [entityId, `[${Array.from(query).join(',')}]`],
        })
      ).rows,
    close: () => client.end(),
  };
}
let pgvectorFloors = 0;

/**
 * MariaDB: the terms table's postings of the words summed per record (no BM25 statistics), best 10
 * with their values.
 */
export async function mysqlFloor(url: string): Promise<RecallFloor> {
  const connection = await mysql.createConnection(url);
  return {
    text: async (entityId, words) =>
      (
        await connection.query(
          `SELECT r.\`key\`, r.value, r.seq, best.score FROM (
             SELECT \`key\`, SUM(tf) AS score FROM agent_longterm_terms
             WHERE entity_id = ? AND term IN (?) GROUP BY \`key\` ORDER BY score DESC LIMIT 10) best
           JOIN agent_longterm_records r ON r.entity_id = ? AND r.\`key\` = best.\`key\`
           ORDER BY best.score DESC`,
          [entityId, words, entityId],
        )
      )[0],
    vector: async (entityId, query) => {
      const [rows] = await connection.execute(
        'SELECT `key`, embedding FROM agent_longterm_records WHERE entity_id = ? AND LENGTH(embedding) > 0',
        [entityId],
      );
      const best = top10(
        (rows as Array<{ key: Buffer; embedding: Buffer }>).map((row) => ({
          key: String(row.key),
          score: dot(query, unpackEmbedding(row.embedding)),
        })),
      );
      if (best.length === 0) return [];
      return decoded(
        (
          await connection.execute(
            `SELECT \`key\`, value FROM agent_longterm_records WHERE entity_id = ? AND \`key\` IN (${best.map(() => '?').join(', ')})`,
            [entityId, ...best.map((hit) => hit.key)],
          )
        )[0] as Array<{ value: string }>,
      );
    },
    close: () => connection.end(),
  };
}

/** SQLite: FTS5 `MATCH` ordered by `bm25()`, joined to the entity's rows. */
export function sqliteFloor(db: Database): RecallFloor {
  const tag = db.prepare('SELECT tag FROM agent_longterm_text_tags WHERE entity_id = ?');
  const text = db.prepare(`SELECT r.key, r.value, r.seq FROM agent_longterm_terms
    JOIN agent_longterm_records r ON r.rowid = agent_longterm_terms.rowid
    WHERE agent_longterm_terms MATCH ? AND r.entity_id = ? ORDER BY bm25(agent_longterm_terms) LIMIT 10`);
  const vectors = db.prepare(
    'SELECT key, embedding FROM agent_longterm_records WHERE entity_id = ? AND embedding IS NOT NULL',
  );
  const values = db.prepare(
    'SELECT key, value FROM agent_longterm_records WHERE entity_id = ? AND key IN (SELECT value FROM json_each(?))',
  );
  return {
    text: async (entityId, words) => {
      const { tag: n } = tag.get(entityId) as { tag: number };
      return text.all(words.map((word) => `"q${n}q${word}"`).join(' OR '), entityId);
    },
    vector: async (entityId, query) => {
      const best = top10(
        (vectors.all(entityId) as Array<{ key: string; embedding: Buffer }>).map((row) => ({
          key: row.key,
          score: dot(query, unpackEmbedding(row.embedding)),
        })),
      );
      return decoded(
        values.all(entityId, JSON.stringify(best.map((hit) => hit.key))) as Array<{
          value: string;
        }>,
      );
    },
    close: async () => undefined,
  };
}

/**
 * Redis has no full-text engine (no RediSearch): the floor reads the posting hashes of the query's
 * words in one pipeline — the least an inverted index must read — and scores nothing.
 */
export function redisFloor(url: string, prefix: string): RecallFloor {
  const client = new Redis(url);
  return {
    text: async (entityId, words) => {
      const keys = longtermRedisKeys(prefix, entityId);
      const pipeline = client.pipeline();
      for (const word of words) pipeline.hgetall(`${keys.wordBase}${word}`);
      return pipeline.exec();
    },
    vector: async (entityId, query) => {
      const keys = longtermRedisKeys(prefix, entityId);
      const all = await client.hgetallBuffer(keys.vectors);
      const best = top10(
        Object.entries(all).map(([key, packed]) => {
          const text = packed.toString();
          const colon = text.indexOf(':');
          const bytes = Buffer.from(text.slice(colon + 1 + Number(text.slice(0, colon))), 'base64');
          return { key, score: dot(query, unpackEmbedding(bytes)) };
        }),
      );
      if (best.length === 0) return [];
      // A record is `seq:updatedAt:expiresAt:value`.
      const records = await client.hmget(keys.records, ...best.map((hit) => hit.key));
      return records.map((record) =>
        JSON.parse(
          record!.slice(
            record!.indexOf(':', record!.indexOf(':', record!.indexOf(':') + 1) + 1) + 1,
          ),
        ),
      );
    },
    close: async () => {
      client.disconnect();
    },
  };
}

/**
 * Memory: the same BM25 index class the store keeps, queried bare; a plain array of vectors, then
 * the best values parsed from their JSON, as the store keeps and decodes them. `texts` are the
 * records' values (strings).
 */
export function memoryFloor(
  texts: Map<string, string>,
  vectors: Map<string, Float32Array>,
): RecallFloor {
  let bm25: Bm25Index | undefined;
  const json = new Map([...texts].map(([key, text]) => [key, JSON.stringify(text)]));
  return {
    text: async (_entityId, words) => {
      if (!bm25) {
        bm25 = new Bm25Index();
        for (const [key, text] of texts) bm25.set(key, TextAnalyzer.english.indexedText(text));
      }
      return bm25.search(words).slice(0, 10);
    },
    vector: async (_entityId, query) =>
      top10([...vectors].map(([key, vector]) => ({ key, score: dot(query, vector) }))).map(
        (hit) => ({ ...hit, value: JSON.parse(json.get(hit.key) ?? 'null') as unknown }),
      ),
    close: async () => undefined,
  };
}
