import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { unpackEmbedding } from '../recall/embedding/embedding-bytes.js';

/**
 * `LongtermMemoryModule.forRoot({ recall: { pgvector } })`, on PostgreSQL: unset, the store uses
 * pgvector when the `vector` extension is installed in the database; `false`, never; `true`, it must
 * be (the start fails otherwise); `{ hnsw: { dimensions } }`, it must be and an HNSW index is built
 * for vectors of that many dimensions.
 */
export type PgvectorOption = boolean | { hnsw: { dimensions: number } };

/** How the PostgreSQL store uses pgvector, once it is known to be installed. */
export interface PgvectorMode {
  /**
   * Whether PostgreSQL ranks the vectors; `false` when `recall.pgvector` is `false` but the column
   * exists (another process uses pgvector): the store keeps the column up to date, nothing more.
   */
  rank: boolean;
  /** The dimensions of the HNSW index, when one was asked for. */
  hnswDimensions?: number;
}

/** Most dimensions an HNSW index of pgvector's `vector` type takes. */
export const MAX_HNSW_DIMENSIONS = 2_000;

const logger = new Logger('LongtermPgvector');

/** Rows converted per statement when vectors stored before pgvector get their `vector` column. */
const CONVERT_PAGE = 500;
/** Most pages one start converts (500,000 rows); the rest wait for the next start. */
const MAX_CONVERT_PAGES = 1_000;

/**
 * Whether (and how) the store uses pgvector: checks the extension, adds the `embedding_vector`
 * column (a copy of each stored vector in pgvector's type, kept by every write from then on) unless
 * it exists, builds the HNSW index when asked, and converts the vectors stored before (at most
 * 500,000 a start). With `false`, a column another process added is still kept up to date.
 */
export async function openPgvector(
  dataSource: DataSource,
  option: PgvectorOption | undefined,
): Promise<PgvectorMode | undefined> {
  const installed = (await dataSource.query(
    "SELECT extversion FROM pg_extension WHERE extname = 'vector'",
  )) as unknown[];
  const column = installed.length > 0 && (await hasVectorColumn(dataSource));
  if (option === false) return column ? { rank: false } : undefined;
  if (installed.length === 0) {
    if (option === undefined) return undefined;
    throw new Error(
      'recall.pgvector: the vector extension is not installed in this database (run CREATE EXTENSION vector as its owner), or leave recall.pgvector unset for the exact scan',
    );
  }
  try {
    if (!column)
      await dataSource.query(
        'ALTER TABLE agent_longterm_records ADD COLUMN IF NOT EXISTS embedding_vector vector',
      );
    const hnswDimensions = typeof option === 'object' ? option.hnsw.dimensions : undefined;
    if (hnswDimensions !== undefined)
      // Not CONCURRENTLY: a start waits for the index rather than racing another start building it.
      await dataSource.query(
        `CREATE INDEX IF NOT EXISTS agent_longterm_records_hnsw_${hnswDimensions} ON agent_longterm_records
          USING hnsw ((embedding_vector::vector(${hnswDimensions})) vector_cosine_ops)
          WHERE vector_dims(embedding_vector) = ${hnswDimensions}`,
      );
    await convertStoredVectors(dataSource);
    return hnswDimensions === undefined ? { rank: true } : { rank: true, hnswDimensions };
  } catch (error) {
    // Unset: pgvector is a bonus; a role that may not alter the table keeps the exact scan.
    if (option !== undefined || column) throw error;
    logger.warn(`Not using pgvector (the exact scan ranks vectors): ${(error as Error).message}`);
    return undefined;
  }
}

/** Whether `agent_longterm_records` has the `embedding_vector` column already. */
async function hasVectorColumn(dataSource: DataSource): Promise<boolean> {
  const found = (await dataSource.query(
    `SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema()
      AND table_name = 'agent_longterm_records' AND column_name = 'embedding_vector'`,
  )) as unknown[];
  return found.length > 0;
}

/** A stored vector's bytes as a pgvector literal (`[0.6,0.8]`); `null` for none or an empty one. */
export function vectorLiteral(bytes: Uint8Array | null): string | null {
  if (bytes === null || bytes.length === 0) return null;
  return `[${Array.from(unpackEmbedding(bytes)).join(',')}]`;
}

/**
 * The nearest rows of an entity by cosine distance, computed by pgvector: `$3` the query vector,
 * the rest as the exact scan's statement. The ORDER BY casts to the dimension, and holds nothing
 * else (the caller orders ties by key), so that an HNSW index built for it can serve the query
 * (PostgreSQL's planner picks it or the primary key).
 */
export function nearestSql(columns: string, live: string, dimensions: number): string {
  return `SELECT ${columns}, 1 - (embedding_vector <=> $3::vector) AS score
    FROM agent_longterm_records
    WHERE entity_id = $1 AND embedding_model = $2 AND vector_dims(embedding_vector) = ${dimensions}
      AND ${live}4 AND key >= $5 AND ($6::text IS NULL OR key < $7) AND updated_at >= $8
      AND updated_at < $9
    ORDER BY embedding_vector::vector(${dimensions}) <=> $3::vector(${dimensions}) LIMIT $10`;
}

/**
 * Gives `embedding_vector` to the rows whose vector was stored before pgvector was used, in pages
 * along the primary key, each row only while it still holds the bytes read.
 */
async function convertStoredVectors(dataSource: DataSource): Promise<number> {
  let converted = 0;
  let after: [string, string] = ['', ''];
  for (let page = 0; page < MAX_CONVERT_PAGES; page += 1) {
    const rows = (await dataSource.query(
      `SELECT entity_id, key, embedding FROM agent_longterm_records
        WHERE (entity_id, key) > ($1, $2) AND embedding_vector IS NULL AND length(embedding) > 0
        ORDER BY entity_id, key LIMIT ${CONVERT_PAGE}`,
      after,
    )) as Array<{ entity_id: string; key: string; embedding: Buffer }>;
    if (rows.length === 0) break;
    await dataSource.query(
      `UPDATE agent_longterm_records AS r SET embedding_vector = u.vector::vector
        FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[]) AS u(entity_id, key, embedding, vector)
        WHERE r.entity_id = u.entity_id AND r.key = u.key AND r.embedding = u.embedding`,
      [
        rows.map((row) => row.entity_id),
        rows.map((row) => row.key),
        rows.map((row) => row.embedding),
        rows.map((row) => vectorLiteral(row.embedding)),
      ],
    );
    converted += rows.length;
    const last = rows.at(-1)!;
    after = [last.entity_id, last.key];
  }
  if (converted > 0) logger.log(`Gave ${converted} stored vector(s) their pgvector column`);
  return converted;
}
