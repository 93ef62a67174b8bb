/** One stored checkpoint: its place, its parent, and the serializer's output for it and its metadata. */
export interface CheckpointRow {
  threadId: string;
  /** The checkpoint namespace (`''` for the root graph). */
  namespace: string;
  checkpointId: string;
  /** The checkpoint it was made from, if any. */
  parentId?: string;
  /** The serializer's type tag and bytes of the checkpoint. */
  checkpoint: SerializedValue;
  /** The serializer's type tag and bytes of the metadata. */
  metadata: SerializedValue;
}

/** One pending write of a task, stored against the checkpoint it was made from. */
export interface WriteRow {
  threadId: string;
  namespace: string;
  checkpointId: string;
  taskId: string;
  /** The write's index within its task; negative for the special channels (errors, interrupts). */
  idx: number;
  channel: string;
  /** `''` when the caller gave none. */
  taskPath: string;
  value: SerializedValue;
}

/** A serializer's output: its type tag and the bytes. */
export interface SerializedValue {
  type: string;
  bytes: Uint8Array;
}

/**
 * A channel's value at one version, stored once and shared by every checkpoint that holds that
 * version (a checkpoint row keeps only the versions); `value` absent: the channel was emptied.
 */
export interface ChannelBlob {
  channel: string;
  /** The channel version, as text. */
  version: string;
  value?: SerializedValue;
}

/** What `list` asks of the rows: every given field must match. */
export interface CheckpointQuery {
  threadId?: string;
  namespace?: string;
  checkpointId?: string;
  /** Only checkpoints whose id sorts before it. */
  before?: string;
}

/** Where a page of `listPage` ended: the next page starts after it. */
export interface CheckpointCursor {
  threadId: string;
  checkpointId: string;
  namespace: string;
}

/**
 * The storage of checkpoints and pending writes on one backend: plain rows, written atomically per
 * call. The saver above it does the serializing and LangGraph's rules; a backend only stores,
 * orders and deletes.
 */
export interface CheckpointRows {
  /**
   * Stores a checkpoint and the channel values it changed, in one atomic step (a second put of the
   * same id replaces the checkpoint; a blob already stored at its version stays).
   */
  putCheckpoint(row: CheckpointRow, blobs: ChannelBlob[]): Promise<void>;
  /** The stored blobs among `wanted` (the channel versions a checkpoint holds), in any order. */
  loadBlobs(
    threadId: string,
    namespace: string,
    wanted: Array<{ channel: string; version: string }>,
  ): Promise<ChannelBlob[]>;
  /**
   * Stores a task's writes in one atomic step: a write at a negative index replaces the stored one;
   * a write at an index already stored for the task is ignored (the first one stays).
   */
  putWrites(rows: WriteRow[]): Promise<void>;
  /** The checkpoint with that id, or the namespace's newest when `checkpointId` is absent. */
  getCheckpoint(
    threadId: string,
    namespace: string,
    checkpointId?: string,
  ): Promise<CheckpointRow | undefined>;
  /**
   * Up to `limit` checkpoints matching `query`, ordered by thread id, then checkpoint id, then
   * namespace, all descending (newest first within a thread), starting after `after`.
   */
  listPage(
    query: CheckpointQuery,
    limit: number,
    after?: CheckpointCursor,
  ): Promise<CheckpointRow[]>;
  /** The writes stored against one checkpoint, in any order. */
  writesOf(threadId: string, namespace: string, checkpointId: string): Promise<WriteRow[]>;
  /** Removes every checkpoint and write of the thread, in every namespace. */
  deleteThread(threadId: string): Promise<void>;
}
