import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';

/** The default key prefix of the long-term store and its counters on Redis. */
export const DEFAULT_LONGTERM_REDIS_PREFIX = 'agent-memory:longterm:';

/** The Redis keys of one entity, hash-tagged so every script's keys share a cluster slot. */
export interface LongtermRedisKeys {
  /** Hash: key → `seq:updatedAt:expiresAt:value`. */
  records: string;
  /** Sorted set of live keys (all scores 0: lexicographic byte order). */
  live: string;
  /** Sorted set of expiring keys by expiry. */
  expiry: string;
  /** The entity's seq counter (`INCR`). */
  counter: string;
  /** The entity's erasure mark (highest erased seq). */
  erased: string;
  /** Text index: hash of indexed records (key → `length word …`). */
  docs: string;
  /** Text index: hash of totals (`n` records, `words`). */
  totals: string;
  /** Text index: the start of each word's posting hash (`<wordBase><word>`). */
  wordBase: string;
  /** Hash of vectors: key → `<model length>:<model><base64 float32 LE>`. */
  vectors: string;
}

/** The keys of `entityId` under `prefix` (the store and the counter share them). */
export function longtermRedisKeys(prefix: string, entityId: string): LongtermRedisKeys {
  const base = `${prefix}${taggedRedisId(entityId)}`;
  return {
    records: `${base}:records`,
    live: `${base}:keys`,
    expiry: `${base}:expiry`,
    counter: `${base}:seq`,
    erased: `${base}:erased`,
    docs: `${base}:text:docs`,
    totals: `${base}:text:totals`,
    wordBase: `${base}:text:w:`,
    vectors: `${base}:vectors`,
  };
}
