import type {
  ChannelBlob,
  CheckpointCursor,
  CheckpointQuery,
  CheckpointRow,
  CheckpointRows,
  WriteRow,
} from '../checkpoint-rows.js';
import { compareCodePoints } from './code-point-order.js';

/** Checkpoints and writes in this process's memory (`memory:`): gone when it exits. */
export class InMemoryCheckpointRows implements CheckpointRows {
  /** Per thread, its checkpoints by `[namespace, id]`. */
  private readonly threads = new Map<string, Map<string, CheckpointRow>>();
  /** Per thread, its writes by `[namespace, checkpoint id, task id, idx]`. */
  private readonly writes = new Map<string, Map<string, WriteRow>>();

  /** Per thread, channel blobs by `[namespace, channel, version]`. */
  private readonly blobs = new Map<string, Map<string, ChannelBlob>>();

  async putCheckpoint(row: CheckpointRow, blobs: ChannelBlob[]): Promise<void> {
    const stored = this.blobs.get(row.threadId) ?? new Map<string, ChannelBlob>();
    this.blobs.set(row.threadId, stored);
    for (const blob of blobs) {
      const key = JSON.stringify([row.namespace, blob.channel, blob.version]);
      if (!stored.has(key)) stored.set(key, copyBlob(blob));
    }
    const thread = this.threads.get(row.threadId) ?? new Map<string, CheckpointRow>();
    this.threads.set(row.threadId, thread);
    thread.set(JSON.stringify([row.namespace, row.checkpointId]), copyRow(row));
  }

  async putWrites(rows: WriteRow[]): Promise<void> {
    for (const row of rows) {
      const thread = this.writes.get(row.threadId) ?? new Map<string, WriteRow>();
      this.writes.set(row.threadId, thread);
      const key = JSON.stringify([row.namespace, row.checkpointId, row.taskId, row.idx]);
      if (row.idx >= 0 && thread.has(key)) continue;
      thread.set(key, { ...row, value: { ...row.value, bytes: row.value.bytes.slice() } });
    }
  }

  async loadBlobs(
    threadId: string,
    namespace: string,
    wanted: Array<{ channel: string; version: string }>,
  ): Promise<ChannelBlob[]> {
    const stored = this.blobs.get(threadId);
    return wanted.flatMap(({ channel, version }) => {
      const blob = stored?.get(JSON.stringify([namespace, channel, version]));
      return blob ? [copyBlob(blob)] : [];
    });
  }

  async getCheckpoint(
    threadId: string,
    namespace: string,
    checkpointId?: string,
  ): Promise<CheckpointRow | undefined> {
    const thread = this.threads.get(threadId);
    if (!thread) return undefined;
    if (checkpointId !== undefined) {
      const row = thread.get(JSON.stringify([namespace, checkpointId]));
      return row && copyRow(row);
    }
    const newest = [...thread.values()]
      .filter((row) => row.namespace === namespace)
      .sort((a, b) => compareCodePoints(b.checkpointId, a.checkpointId))[0];
    return newest && copyRow(newest);
  }

  async listPage(
    query: CheckpointQuery,
    limit: number,
    after?: CheckpointCursor,
  ): Promise<CheckpointRow[]> {
    const threads = query.threadId === undefined ? [...this.threads.keys()] : [query.threadId];
    return threads
      .flatMap((threadId) => [...(this.threads.get(threadId)?.values() ?? [])])
      .filter(
        (row) =>
          (query.namespace === undefined || row.namespace === query.namespace) &&
          (query.checkpointId === undefined || row.checkpointId === query.checkpointId) &&
          (query.before === undefined || compareCodePoints(row.checkpointId, query.before) < 0) &&
          (after === undefined || compareListOrder(row, after) > 0),
      )
      .sort(compareListOrder)
      .slice(0, limit)
      .map(copyRow);
  }

  async writesOf(threadId: string, namespace: string, checkpointId: string): Promise<WriteRow[]> {
    return [...(this.writes.get(threadId)?.values() ?? [])]
      .filter((row) => row.namespace === namespace && row.checkpointId === checkpointId)
      .map((row) => ({ ...row, value: { ...row.value, bytes: row.value.bytes.slice() } }));
  }

  async deleteThread(threadId: string): Promise<void> {
    this.threads.delete(threadId);
    this.writes.delete(threadId);
    this.blobs.delete(threadId);
  }
}

/** The list order: thread id, checkpoint id and namespace, each descending. */
function compareListOrder(a: CheckpointCursor, b: CheckpointCursor): number {
  return (
    compareCodePoints(b.threadId, a.threadId) ||
    compareCodePoints(b.checkpointId, a.checkpointId) ||
    compareCodePoints(b.namespace, a.namespace)
  );
}

function copyBlob(blob: ChannelBlob): ChannelBlob {
  return blob.value
    ? { ...blob, value: { ...blob.value, bytes: blob.value.bytes.slice() } }
    : { ...blob };
}

function copyRow(row: CheckpointRow): CheckpointRow {
  return {
    ...row,
    checkpoint: { ...row.checkpoint, bytes: row.checkpoint.bytes.slice() },
    metadata: { ...row.metadata, bytes: row.metadata.bytes.slice() },
  };
}
