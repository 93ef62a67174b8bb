import { InvalidArgumentError } from '../../../common/errors/invalid-argument.error.js';
import { type RedisClient, isRedisCluster } from '../../connections/redis/redis-client.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type { StoredEmbedding } from '../recall/embedding/embedding-bytes.js';
import type { PreparedEmbedding, VectorMatch } from '../recall/vector-match.js';
import type { StoredRow } from './stored-row.js';
import { type LongtermRedisKeys, longtermRedisKeys } from './redis-keys.js';
import { SET_EMBEDDINGS } from './redis.longterm.scripts.js';
import type { VectorCandidate } from './vector-scan.js';

/** Parses a stored record (`seq:updatedAt:expiresAt:value`). */
export type ParseRecord = (entityId: string, key: string, record: string) => StoredRow;

/** A vector as the vectors hash holds it: `<model length>:<model><base64 float32 LE>` ('' none). */
export function packRedisVector(embedding: StoredEmbedding | null): string {
  if (!embedding) return '';
  return `${embedding.model.length}:${embedding.model}${embedding.bytes.toString('base64')}`;
}

function unpackRedisVector(packed: string): { model: string; bytes: Buffer } | null {
  const colon = packed.indexOf(':');
  const length = Number(packed.slice(0, colon));
  if (colon < 1 || !Number.isInteger(length)) return null;
  return {
    model: packed.slice(colon + 1, colon + 1 + length),
    bytes: Buffer.from(packed.slice(colon + 1 + length), 'base64'),
  };
}

/**
 * The entity's vectors of the model within the key prefix: its vectors hash read whole (`HGETALL`:
 * an exact scan), without the records — liveness and the time filter are checked on the rows of
 * the best ones only (`readRedisRows`).
 */
export async function readRedisVectors(
  client: RedisClient,
  keys: LongtermRedisKeys,
  match: VectorMatch,
): Promise<VectorCandidate[]> {
  const all = await client.hgetall(keys.vectors);
  const found: VectorCandidate[] = [];
  for (const [key, packed] of Object.entries(all)) {
    if (!key.startsWith(match.lower)) continue;
    const vector = unpackRedisVector(packed);
    if (vector && vector.model === match.model && vector.bytes.length > 0)
      found.push({ key, embedding: vector.bytes });
  }
  return found;
}

/** The live rows of these keys of the entity (`HMGET`, 1,000 keys a call). */
export async function readRedisRows(
  client: RedisClient,
  keys: LongtermRedisKeys,
  entityId: string,
  wanted: string[],
  now: number,
  parse: ParseRecord,
): Promise<StoredRow[]> {
  const rows: StoredRow[] = [];
  for (let i = 0; i < wanted.length; i += 1_000) {
    const chunk = wanted.slice(i, i + 1_000);
    const records = await client.hmget(keys.records, ...chunk);
    chunk.forEach((key, j) => {
      const record = records[j];
      if (!record) return;
      const row = parse(entityId, key, record);
      if (row.value !== '' && (row.expiresAt === null || row.expiresAt > now)) rows.push(row);
    });
  }
  return rows;
}

/** Stores vectors for rows that still have their seq (one script per entity). */
export async function writeRedisEmbeddings(
  client: RedisClient,
  prefix: string,
  updates: PreparedEmbedding[],
  now: number,
): Promise<boolean[]> {
  const applied: boolean[] = new Array(updates.length).fill(false);
  const byEntity = new Map<string, number[]>();
  updates.forEach((update, i) =>
    byEntity.set(update.entityId, [...(byEntity.get(update.entityId) ?? []), i]),
  );
  for (const [entityId, indexes] of byEntity) {
    const keys = longtermRedisKeys(prefix, entityId);
    const flags = (await SET_EMBEDDINGS.run(
      client,
      [keys.records, keys.vectors],
      [
        now,
        ...indexes.flatMap((i) => [
          updates[i]!.key,
          String(updates[i]!.seq),
          updates[i]!.value,
          packRedisVector(updates[i]!),
        ]),
      ],
    )) as string;
    indexes.forEach((index, j) => (applied[index] = flags[j] === '1'));
  }
  return applied;
}

/**
 * Where a walk over every entity stands: the node, its `SCAN` cursor, the entities still to read,
 * and the last key read of the first of them.
 */
interface WalkPosition {
  node: number;
  scan: string;
  queue: string[];
  within?: string;
}

/**
 * Up to `limit` live rows without a vector of `model`: entities are found by `SCAN`ning each master
 * for records hashes (an id is taken only if its hash tag matches it); each entity's live keys are
 * read page by page from its sorted set (`ZRANGEBYLEX`), with their records and vectors (`HMGET`).
 * The cursor holds the node, the `SCAN` cursor, the entities still to read and the last key read of
 * the first of them.
 */
export async function scanRedisUnembedded(
  client: RedisClient,
  prefix: string,
  model: string,
  limit: number,
  cursor: string | undefined,
  now: number,
  parse: ParseRecord,
): Promise<{ rows: StoredRow[]; cursor?: string }> {
  const nodes = isRedisCluster(client) ? client.nodes('master') : [client];
  const position = cursor ? decodeWalk(cursor) : { node: 0, scan: '0', queue: [] };
  const rows: StoredRow[] = [];
  const pattern = `${globEscaped(prefix)}{*}*:records`;
  while (rows.length < limit) {
    if (position.queue.length === 0) {
      if (position.node >= nodes.length) return { rows };
      const [next, found] = await nodes[position.node]!.scan(
        position.scan,
        'MATCH',
        pattern,
        'COUNT',
        200,
      );
      position.queue = found
        .map((key) => entityOf(prefix, key))
        .filter((id): id is string => id !== undefined);
      if (next === '0') {
        position.node += 1;
        position.scan = '0';
      } else position.scan = next;
      continue;
    }
    const entityId = position.queue[0]!;
    const keys = longtermRedisKeys(prefix, entityId);
    // The entity's live keys in byte order (its sorted set), a page at a time after the last one.
    const wanted = limit - rows.length;
    const page = await client.zrangebylex(
      keys.live,
      position.within === undefined ? '-' : `(${position.within}`,
      '+',
      'LIMIT',
      0,
      wanted,
    );
    if (page.length > 0) {
      const [records, vectors] = await Promise.all([
        client.hmget(keys.records, ...page),
        client.hmget(keys.vectors, ...page),
      ]);
      page.forEach((key, j) => {
        const record = records[j];
        if (!record) return;
        const row = parse(entityId, key, record);
        const live = row.value !== '' && (row.expiresAt === null || row.expiresAt > now);
        if (live && unpackRedisVector(vectors[j] ?? '')?.model !== model) rows.push(row);
      });
    }
    if (page.length < wanted) {
      position.queue.shift();
      delete position.within;
    } else position.within = page.at(-1);
  }
  const done = position.queue.length === 0 && position.node >= nodes.length;
  return done
    ? { rows }
    : { rows, cursor: Buffer.from(JSON.stringify(position)).toString('base64url') };
}

/** The walk position a cursor holds, or an `InvalidArgumentError`. */
function decodeWalk(cursor: string): WalkPosition {
  try {
    const position = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as WalkPosition;
    if (
      Number.isInteger(position.node) &&
      typeof position.scan === 'string' &&
      Array.isArray(position.queue) &&
      position.queue.every((id) => typeof id === 'string') &&
      (position.within === undefined || typeof position.within === 'string')
    )
      return position;
  } catch {
    // refused below
  }
  throw new InvalidArgumentError('cursor', 'must be a cursor an earlier page gave');
}

/** `text` with the glob characters of `SCAN … MATCH` (`*`, `?`, `[`, `]`, `\\`) escaped. */
function globEscaped(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}

/** The entity id of a records hash key, or `undefined` when the key is not one. */
function entityOf(prefix: string, key: string): string | undefined {
  if (!key.startsWith(prefix) || !key.endsWith(':records')) return undefined;
  const tagged = key.slice(prefix.length, -':records'.length);
  const close = tagged.indexOf('}');
  if (!tagged.startsWith('{') || close < 0) return undefined;
  const id = tagged.slice(close + 1);
  return id.length > 0 && taggedRedisId(id) === tagged ? id : undefined;
}
