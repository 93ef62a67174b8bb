import type { RedisClient } from '../../connections/redis/redis-client.js';
import { taggedRedisId } from '../../connections/redis/tagged-redis-id.js';
import type {
  ChannelBlob,
  CheckpointCursor,
  CheckpointQuery,
  CheckpointRow,
  CheckpointRows,
  WriteRow,
} from '../checkpoint-rows.js';
import {
  DELETE_THREAD,
  type StoredCheckpoint,
  type StoredValue,
  encode,
  decode,
  base64,
  checkpointRow,
  lowest,
  compareBytes,
  exec,
} from './redis.checkpoint-format.js';

/** The default start of every key the checkpointer writes. */
export const DEFAULT_CHECKPOINT_REDIS_PREFIX = 'agent-memory:lg:';

/** Threads read per round trip while a `list` without a thread id walks them. */
const THREAD_PAGE = 50;

/**
 * Checkpoints in Redis (a single server or a Cluster). Every key of a thread carries the thread's
 * hash tag, so each call on a thread is one `MULTI` in one slot:
 * - `cp:{t}T` hash `[ns, id]` → the checkpoint (JSON, bytes in base64);
 * - `ix:{t}T` sorted set of `id U+0000 ns` (all scores 0: lexicographic order is checkpoint id, then
 *   namespace, by code point) and `nx:{t}T U+0000 ns` of the namespace's ids, for `list` and the newest;
 * - `b:{t}T` hash `[ns, channel, version]` → a channel blob; `w:{t}T U+0000 ns U+0000 id` hash
 *   `[task, idx]` → a write; `ns:{t}T` and `wk:{t}T` name the per-namespace and per-checkpoint keys
 *   for `deleteThread`.
 * One more key, `threads`, lists the thread ids for a `list` without one; a thread is added to it
 * before its first checkpoint is written and removed after its keys are deleted.
 */
export class RedisCheckpointRows implements CheckpointRows {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix = DEFAULT_CHECKPOINT_REDIS_PREFIX,
  ) {}

  async putCheckpoint(row: CheckpointRow, blobs: ChannelBlob[]): Promise<void> {
    const keys = this.keys(row.threadId);
    // Listed before (a crash after the write leaves it listed) and after (a concurrent delete of
    // the thread may have unlisted it in between).
    await this.client.zadd(this.threadsKey(), 0, row.threadId);
    const stored: StoredCheckpoint = {
      ...(row.parentId === undefined ? {} : { p: row.parentId }),
      ct: row.checkpoint.type,
      c: base64(row.checkpoint.bytes),
      mt: row.metadata.type,
      m: base64(row.metadata.bytes),
    };
    const multi = this.client.multi();
    for (const blob of blobs)
      multi.hsetnx(
        keys.blobs,
        JSON.stringify([row.namespace, blob.channel, blob.version]),
        JSON.stringify(blob.value ? encode(blob.value) : null),
      );
    multi
      .hset(
        keys.checkpoints,
        JSON.stringify([row.namespace, row.checkpointId]),
        JSON.stringify(stored),
      )
      .zadd(keys.all, 0, `${row.checkpointId}\u0000${row.namespace}`)
      .zadd(keys.namespace(row.namespace), 0, row.checkpointId)
      .sadd(keys.namespaces, row.namespace);
    await exec(multi);
    await this.client.zadd(this.threadsKey(), 0, row.threadId);
  }

  async loadBlobs(
    threadId: string,
    namespace: string,
    wanted: Array<{ channel: string; version: string }>,
  ): Promise<ChannelBlob[]> {
    if (wanted.length === 0) return [];
    const found = await this.client.hmget(
      this.keys(threadId).blobs,
      ...wanted.map(({ channel, version }) => JSON.stringify([namespace, channel, version])),
    );
    return wanted.flatMap(({ channel, version }, index) => {
      const text = found[index];
      if (text === null || text === undefined) return [];
      const value = JSON.parse(text) as StoredValue | null;
      return [{ channel, version, ...(value ? { value: decode(value) } : {}) }];
    });
  }

  async putWrites(rows: WriteRow[]): Promise<void> {
    const first = rows[0]!;
    const keys = this.keys(first.threadId);
    const writesKey = keys.writes(first.namespace, first.checkpointId);
    const multi = this.client.multi().sadd(keys.writeKeys, writesKey);
    for (const row of rows) {
      const field = JSON.stringify([row.taskId, row.idx]);
      const value = JSON.stringify({ ch: row.channel, tp: row.taskPath, ...encode(row.value) });
      // A special channel's write (negative idx) replaces the stored one; any other keeps the first.
      if (row.idx < 0) multi.hset(writesKey, field, value);
      else multi.hsetnx(writesKey, field, value);
    }
    await exec(multi);
  }

  async getCheckpoint(
    threadId: string,
    namespace: string,
    checkpointId?: string,
  ): Promise<CheckpointRow | undefined> {
    const keys = this.keys(threadId);
    const id = checkpointId ?? (await this.client.zrevrange(keys.namespace(namespace), 0, 0))[0];
    if (id === undefined) return undefined;
    const text = await this.client.hget(keys.checkpoints, JSON.stringify([namespace, id]));
    return text === null ? undefined : checkpointRow(threadId, namespace, id, text);
  }

  async listPage(
    query: CheckpointQuery,
    limit: number,
    after?: CheckpointCursor,
  ): Promise<CheckpointRow[]> {
    if (query.threadId !== undefined)
      return after && after.threadId !== query.threadId
        ? []
        : this.listThread(query.threadId, query, limit, after);
    const rows: CheckpointRow[] = [];
    let from = after === undefined ? '+' : `[${after.threadId}`;
    for (;;) {
      const threads = await this.client.zrevrangebylex(
        this.threadsKey(),
        from,
        '-',
        'LIMIT',
        0,
        THREAD_PAGE,
      );
      for (const threadId of threads) {
        const cursor = after?.threadId === threadId ? after : undefined;
        rows.push(...(await this.listThread(threadId, query, limit - rows.length, cursor)));
        if (rows.length >= limit) return rows;
      }
      if (threads.length < THREAD_PAGE) return rows;
      from = `(${threads.at(-1)!}`;
    }
  }

  async writesOf(threadId: string, namespace: string, checkpointId: string): Promise<WriteRow[]> {
    const stored = await this.client.hgetall(this.keys(threadId).writes(namespace, checkpointId));
    return Object.entries(stored).map(([field, text]) => {
      const [taskId, idx] = JSON.parse(field) as [string, number];
      const value = JSON.parse(text) as StoredValue & { ch: string; tp: string };
      return {
        threadId,
        namespace,
        checkpointId,
        taskId,
        idx,
        channel: value.ch,
        taskPath: value.tp,
        value: decode(value),
      };
    });
  }

  async deleteThread(threadId: string): Promise<void> {
    const keys = this.keys(threadId);
    // One script: the per-namespace and per-checkpoint keys are read and deleted atomically, so a
    // write racing the delete is either all gone or all there (every key shares the thread's slot).
    await DELETE_THREAD.run(
      this.client,
      [keys.checkpoints, keys.all, keys.blobs, keys.namespaces, keys.writeKeys],
      [keys.namespace('')],
    );
    await this.client.zrem(this.threadsKey(), threadId);
    // A checkpoint put while the thread was being deleted keeps the thread listed.
    if ((await this.client.exists(keys.checkpoints)) > 0)
      await this.client.zadd(this.threadsKey(), 0, threadId);
  }

  /** One thread's rows in list order, after `cursor` (which is in this thread) if given. */
  private async listThread(
    threadId: string,
    query: CheckpointQuery,
    limit: number,
    cursor: CheckpointCursor | undefined,
  ): Promise<CheckpointRow[]> {
    const keys = this.keys(threadId);
    let members: string[];
    if (query.checkpointId !== undefined) {
      const all = `${query.checkpointId}\u0000`;
      members = (
        await this.client.zrangebylex(keys.all, `[${all}`, `(${query.checkpointId}\u0001`)
      ).reverse();
    } else if (query.namespace !== undefined) {
      const upper = lowest([query.before, cursor?.checkpointId]);
      const ids = await this.client.zrevrangebylex(
        keys.namespace(query.namespace),
        upper === undefined ? '+' : `(${upper}`,
        '-',
        'LIMIT',
        0,
        limit,
      );
      members = ids.map((id) => `${id}\u0000${query.namespace}`);
    } else {
      const upper = lowest([
        query.before,
        cursor && `${cursor.checkpointId}\u0000${cursor.namespace}`,
      ]);
      members = await this.client.zrevrangebylex(
        keys.all,
        upper === undefined ? '+' : `(${upper}`,
        '-',
        'LIMIT',
        0,
        limit,
      );
    }
    const places = members
      .map((member) => {
        const split = member.indexOf('\u0000');
        return { checkpointId: member.slice(0, split), namespace: member.slice(split + 1) };
      })
      .filter(
        ({ checkpointId, namespace }) =>
          (query.namespace === undefined || namespace === query.namespace) &&
          (query.before === undefined || compareBytes(checkpointId, query.before) < 0) &&
          (cursor === undefined ||
            compareBytes(
              `${checkpointId}\u0000${namespace}`,
              `${cursor.checkpointId}\u0000${cursor.namespace}`,
            ) < 0),
      )
      .slice(0, limit);
    if (places.length === 0) return [];
    const texts = await this.client.hmget(
      keys.checkpoints,
      ...places.map(({ namespace, checkpointId }) => JSON.stringify([namespace, checkpointId])),
    );
    return places.flatMap(({ namespace, checkpointId }, index) => {
      const text = texts[index];
      return text === null || text === undefined
        ? []
        : [checkpointRow(threadId, namespace, checkpointId, text)];
    });
  }

  private threadsKey(): string {
    return `${this.prefix}threads`;
  }

  private keys(threadId: string) {
    const thread = taggedRedisId(threadId);
    const at = (kind: string) => `${this.prefix}${kind}:${thread}`;
    return {
      checkpoints: at('cp'),
      all: at('ix'),
      namespace: (namespace: string) => `${at('nx')}\u0000${namespace}`,
      namespaces: at('ns'),
      blobs: at('b'),
      writes: (namespace: string, checkpointId: string) =>
        `${at('w')}\u0000${namespace}\u0000${checkpointId}`,
      writeKeys: at('wk'),
    };
  }
}
