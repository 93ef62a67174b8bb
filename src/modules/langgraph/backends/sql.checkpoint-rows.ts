import type { SqlExecutor } from '../../connections/sql/sql-executor.js';
import type { SqlDialect } from '../../connections/sql/sql-target.js';
import type {
  ChannelBlob,
  CheckpointCursor,
  CheckpointQuery,
  CheckpointRow,
  CheckpointRows,
  WriteRow,
} from '../checkpoint-rows.js';

const CHECKPOINT_COLUMNS =
  'thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint_type, checkpoint, metadata_type, metadata';
const WRITE_COLUMNS =
  'thread_id, checkpoint_ns, checkpoint_id, task_id, idx, channel, task_path, value_type, value';
const WRITE_VALUES = ['channel', 'task_path', 'value_type', 'value'];
const CHECKPOINT_VALUES = [
  'parent_checkpoint_id',
  'checkpoint_type',
  'checkpoint',
  'metadata_type',
  'metadata',
];

type Row = Record<string, unknown>;

/**
 * Checkpoints, channel blobs and writes in the package's SQL tables (PostgreSQL, MySQL/MariaDB,
 * SQLite). Each call is one statement, except `putCheckpoint` (the blobs, then the checkpoint: a
 * checkpoint is never visible before its values) and `deleteThread` (the checkpoints first, so a
 * half-done delete leaves only unreachable rows, removed by deleting again).
 */
export class SqlCheckpointRows implements CheckpointRows {
  constructor(
    private readonly execute: SqlExecutor,
    private readonly dialect: SqlDialect,
  ) {}

  async putCheckpoint(row: CheckpointRow, blobs: ChannelBlob[]): Promise<void> {
    if (blobs.length > 0) {
      const params = blobs.flatMap((blob) => [
        row.threadId,
        row.namespace,
        blob.channel,
        blob.version,
        blob.value?.type ?? '',
        Buffer.from(blob.value?.bytes ?? new Uint8Array()),
      ]);
      await this.execute(
        null,
        `INSERT INTO agent_langgraph_blobs (thread_id, checkpoint_ns, channel, version, value_type, value)
         VALUES ${this.tuples(blobs.length, 6)} ${this.keepExisting('thread_id, checkpoint_ns, channel, version')}`,
        params,
      );
    }
    await this.execute(
      'langgraph_put_checkpoint',
      `INSERT INTO agent_langgraph_checkpoints (${CHECKPOINT_COLUMNS}) VALUES ${this.tuples(1, 8)}
       ${this.replaceExisting('thread_id, checkpoint_ns, checkpoint_id', CHECKPOINT_VALUES)}`,
      [
        row.threadId,
        row.namespace,
        row.checkpointId,
        row.parentId ?? '',
        row.checkpoint.type,
        Buffer.from(row.checkpoint.bytes),
        row.metadata.type,
        Buffer.from(row.metadata.bytes),
      ],
    );
  }

  async loadBlobs(
    threadId: string,
    namespace: string,
    wanted: Array<{ channel: string; version: string }>,
  ): Promise<ChannelBlob[]> {
    if (wanted.length === 0) return [];
    const rows = await this.execute<Row>(
      null,
      `SELECT channel, version, value_type, value FROM agent_langgraph_blobs
       WHERE thread_id = ${this.p(1)} AND checkpoint_ns = ${this.p(2)}
       AND (channel, version) IN (${this.tuples(wanted.length, 2, 3)})`,
      [threadId, namespace, ...wanted.flatMap(({ channel, version }) => [channel, version])],
    );
    return rows.map((found) => {
      const type = text(found.value_type);
      return {
        channel: text(found.channel),
        version: text(found.version),
        ...(type === '' ? {} : { value: { type, bytes: bytes(found.value) } }),
      };
    });
  }

  async putWrites(rows: WriteRow[]): Promise<void> {
    const params = rows.flatMap((row) => [
      row.threadId,
      row.namespace,
      row.checkpointId,
      row.taskId,
      row.idx,
      row.channel,
      Buffer.from(row.taskPath, 'utf8'),
      row.value.type,
      Buffer.from(row.value.bytes),
    ]);
    const key = 'thread_id, checkpoint_ns, checkpoint_id, task_id, idx';
    // A special channel's write (negative idx) replaces the stored one; any other keeps the first.
    const upsert =
      this.dialect === 'mysql'
        ? `ON DUPLICATE KEY UPDATE ${WRITE_VALUES.map((c) => `${c} = IF(idx < 0, VALUES(${c}), ${c})`).join(', ')}`
        : `ON CONFLICT (${key}) DO UPDATE SET ${WRITE_VALUES.map((c) => `${c} = excluded.${c}`).join(', ')}
           WHERE agent_langgraph_writes.idx < 0`;
    await this.execute(
      null,
      `INSERT INTO agent_langgraph_writes (${WRITE_COLUMNS}) VALUES ${this.tuples(rows.length, 9)} ${upsert}`,
      params,
    );
  }

  async getCheckpoint(
    threadId: string,
    namespace: string,
    checkpointId?: string,
  ): Promise<CheckpointRow | undefined> {
    const rows =
      checkpointId === undefined
        ? await this.execute<Row>(
            'langgraph_newest_checkpoint',
            `SELECT ${CHECKPOINT_COLUMNS} FROM agent_langgraph_checkpoints
             WHERE thread_id = ${this.p(1)} AND checkpoint_ns = ${this.p(2)}
             ORDER BY checkpoint_id DESC LIMIT 1`,
            [threadId, namespace],
          )
        : await this.execute<Row>(
            'langgraph_get_checkpoint',
            `SELECT ${CHECKPOINT_COLUMNS} FROM agent_langgraph_checkpoints
             WHERE thread_id = ${this.p(1)} AND checkpoint_ns = ${this.p(2)} AND checkpoint_id = ${this.p(3)}`,
            [threadId, namespace, checkpointId],
          );
    return rows[0] && checkpointRow(rows[0]);
  }

  async listPage(
    query: CheckpointQuery,
    limit: number,
    after?: CheckpointCursor,
  ): Promise<CheckpointRow[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const condition = (sql: (at: (value: unknown) => string) => string) =>
      where.push(
        sql((value) => {
          params.push(value);
          return this.p(params.length);
        }),
      );
    if (query.threadId !== undefined) condition((at) => `thread_id = ${at(query.threadId)}`);
    if (query.namespace !== undefined) condition((at) => `checkpoint_ns = ${at(query.namespace)}`);
    if (query.checkpointId !== undefined)
      condition((at) => `checkpoint_id = ${at(query.checkpointId)}`);
    if (query.before !== undefined) condition((at) => `checkpoint_id < ${at(query.before)}`);
    if (after !== undefined)
      condition(
        (at) =>
          `(thread_id, checkpoint_id, checkpoint_ns) < (${at(after.threadId)}, ${at(after.checkpointId)}, ${at(after.namespace)})`,
      );
    const rows = await this.execute<Row>(
      null,
      `SELECT ${CHECKPOINT_COLUMNS} FROM agent_langgraph_checkpoints
       ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
       ORDER BY thread_id DESC, checkpoint_id DESC, checkpoint_ns DESC LIMIT ${Math.trunc(limit)}`,
      params,
    );
    return rows.map(checkpointRow);
  }

  async writesOf(threadId: string, namespace: string, checkpointId: string): Promise<WriteRow[]> {
    const rows = await this.execute<Row>(
      'langgraph_writes_of',
      `SELECT task_id, idx, channel, task_path, value_type, value FROM agent_langgraph_writes
       WHERE thread_id = ${this.p(1)} AND checkpoint_ns = ${this.p(2)} AND checkpoint_id = ${this.p(3)}`,
      [threadId, namespace, checkpointId],
    );
    return rows.map((row) => ({
      threadId,
      namespace,
      checkpointId,
      taskId: text(row.task_id),
      idx: Number(row.idx),
      channel: text(row.channel),
      taskPath: text(row.task_path),
      value: { type: text(row.value_type), bytes: bytes(row.value) },
    }));
  }

  async deleteThread(threadId: string): Promise<void> {
    for (const table of ['checkpoints', 'writes', 'blobs'])
      await this.execute(
        `langgraph_delete_${table}`,
        `DELETE FROM agent_langgraph_${table} WHERE thread_id = ${this.p(1)}`,
        [threadId],
      );
  }

  /** The n-th placeholder (1-based). */
  private p(n: number): string {
    return this.dialect === 'postgres' ? `$${n}` : '?';
  }

  /** `count` parenthesized tuples of `width` placeholders, numbered from `first`. */
  private tuples(count: number, width: number, first = 1): string {
    return Array.from(
      { length: count },
      (_, row) =>
        `(${Array.from({ length: width }, (_, column) => this.p(first + row * width + column)).join(', ')})`,
    ).join(', ');
  }

  private keepExisting(key: string): string {
    // MySQL: a no-op update rather than INSERT IGNORE, which would also turn errors into warnings.
    return this.dialect === 'mysql'
      ? 'ON DUPLICATE KEY UPDATE thread_id = thread_id'
      : `ON CONFLICT (${key}) DO NOTHING`;
  }

  private replaceExisting(key: string, columns: string[]): string {
    return this.dialect === 'mysql'
      ? `ON DUPLICATE KEY UPDATE ${columns.map((c) => `${c} = VALUES(${c})`).join(', ')}`
      : `ON CONFLICT (${key}) DO UPDATE SET ${columns.map((c) => `${c} = excluded.${c}`).join(', ')}`;
  }
}

function checkpointRow(row: Row): CheckpointRow {
  const parentId = text(row.parent_checkpoint_id);
  return {
    threadId: text(row.thread_id),
    namespace: text(row.checkpoint_ns),
    checkpointId: text(row.checkpoint_id),
    ...(parentId === '' ? {} : { parentId }),
    checkpoint: { type: text(row.checkpoint_type), bytes: bytes(row.checkpoint) },
    metadata: { type: text(row.metadata_type), bytes: bytes(row.metadata) },
  };
}

/** A text column (MySQL's binary columns come back as Buffers). */
function text(value: unknown): string {
  return Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

function bytes(value: unknown): Uint8Array {
  if (value instanceof Uint8Array) return value;
  return Buffer.from(String(value), 'utf8');
}
