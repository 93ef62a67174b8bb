import {
  BaseCheckpointSaver,
  type ChannelVersions,
  type Checkpoint,
  type CheckpointListOptions,
  type CheckpointMetadata,
  type CheckpointPendingWrite,
  type CheckpointTuple,
  type PendingWrite,
  type SerializerProtocol,
  TASKS,
  WRITES_IDX_MAP,
  compareWritesSortKeys,
  copyCheckpoint,
  maxChannelVersion,
  writesSortKey,
} from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../common/errors/invalid-argument.error.js';
import { checkpointIdOf, listQuery, metadataValue, namespaceOf } from './checkpoint-config.js';
import { checkpointKey } from './checkpoint-keys.js';
import type {
  ChannelBlob,
  CheckpointCursor,
  CheckpointRow,
  CheckpointRows,
  WriteRow,
} from './checkpoint-rows.js';

/** Rows read per round trip while `list` pages through a backend. */
const LIST_PAGE = 100;

/**
 * A LangGraph checkpointer (`BaseCheckpointSaver`) on the package's backends: memory, SQLite,
 * PostgreSQL, MySQL/MariaDB or Redis, opened by `openCheckpointSaver` or injected by
 * `LangGraphModule`. It passes LangGraph's own validation suite
 * (`@langchain/langgraph-checkpoint-validation`) on each.
 *
 * Checkpoints and writes are stored as the serializer made them (type tag and bytes). A thread id,
 * namespace, checkpoint id and task id is a string of at most 255 UTF-8 bytes without U+0000; anything
 * else is refused before any I/O. `list`'s metadata `filter` is applied as rows are read (equality
 * of each given key, as LangGraph's savers do), so a filter that matches few checkpoints of a long
 * thread reads the thread.
 */
export class AgentMemoryCheckpointSaver extends BaseCheckpointSaver {
  /**
   * @param rows the backend's storage
   * @param serde how checkpoints and values become bytes (LangGraph's JSON+ serializer by default)
   */
  constructor(
    private readonly rows: CheckpointRows,
    serde?: SerializerProtocol,
  ) {
    super(serde);
  }

  /** The checkpoint `config` names, or its namespace's newest; `undefined` if there is none. */
  async getTuple(config: RunnableConfig): Promise<CheckpointTuple | undefined> {
    if (config.configurable?.thread_id === undefined) return undefined;
    const threadId = checkpointKey('thread_id', config.configurable.thread_id);
    const namespace = namespaceOf(config);
    const checkpointId = checkpointIdOf(config);
    const row = await this.rows.getCheckpoint(threadId, namespace, checkpointId);
    return row && this.toTuple(row);
  }

  /** The checkpoints matching `config` and `options`, newest first within a thread. */
  async *list(
    config: RunnableConfig,
    options?: CheckpointListOptions,
  ): AsyncGenerator<CheckpointTuple> {
    const { limit, before, filter } = options ?? {};
    const query = listQuery(config, before);
    let remaining = limit ?? Number.POSITIVE_INFINITY;
    let after: CheckpointCursor | undefined;
    while (remaining > 0) {
      const page = await this.rows.listPage(query, LIST_PAGE, after);
      for (const row of page) {
        if (remaining <= 0) return;
        const metadata = (await this.load(row.metadata)) as CheckpointMetadata;
        if (
          filter &&
          !Object.entries(filter).every(([key, value]) => metadataValue(metadata, key) === value)
        )
          continue;
        remaining -= 1;
        yield await this.toTuple(row, metadata);
      }
      if (page.length < LIST_PAGE) return;
      const last = page.at(-1)!;
      after = {
        threadId: last.threadId,
        checkpointId: last.checkpointId,
        namespace: last.namespace,
      };
    }
  }

  /** Stores a checkpoint; resolves with the config that names it. */
  async put(
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    newVersions: ChannelVersions = {},
  ): Promise<RunnableConfig> {
    const threadId = checkpointKey('thread_id', config.configurable?.thread_id);
    const namespace = namespaceOf(config);
    const checkpointId = checkpointKey('checkpoint.id', checkpoint.id);
    const parentId = checkpointIdOf(config);
    const { channel_values: values, ...withoutValues } = copyCheckpoint(checkpoint);
    const blobs = await Promise.all(
      Object.entries(newVersions).map(async ([channel, version]): Promise<ChannelBlob> => {
        checkpointKey('channel', channel);
        checkpointKey('channel version', String(version));
        if (!Object.hasOwn(values, channel)) return { channel, version: String(version) };
        const [type, bytes] = await this.serde.dumpsTyped(values[channel]);
        return { channel, version: String(version), value: { type, bytes } };
      }),
    );
    const [serializedCheckpoint, serializedMetadata] = await Promise.all([
      this.serde.dumpsTyped({ ...withoutValues, channel_values: {} }),
      this.serde.dumpsTyped(metadata),
    ]);
    await this.rows.putCheckpoint(
      {
        threadId,
        namespace,
        checkpointId,
        ...(parentId === undefined ? {} : { parentId }),
        checkpoint: { type: serializedCheckpoint[0], bytes: serializedCheckpoint[1] },
        metadata: { type: serializedMetadata[0], bytes: serializedMetadata[1] },
      },
      blobs,
    );
    return {
      configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: checkpointId },
    };
  }

  /** Stores a task's writes against the checkpoint `config` names, in one atomic step. */
  async putWrites(
    config: RunnableConfig,
    writes: PendingWrite[],
    taskId: string,
    taskPath?: string,
  ): Promise<void> {
    const threadId = checkpointKey('thread_id', config.configurable?.thread_id);
    const namespace = namespaceOf(config);
    const checkpointId = checkpointIdOf(config);
    if (checkpointId === undefined)
      throw new InvalidArgumentError('configurable.checkpoint_id', 'is required by putWrites');
    checkpointKey('taskId', taskId);
    if (taskPath !== undefined && typeof taskPath !== 'string')
      throw new InvalidArgumentError('taskPath', 'must be a string');
    const rows = await Promise.all(
      writes.map(async ([channel, value], index): Promise<WriteRow> => {
        checkpointKey('channel', channel);
        const [type, bytes] = await this.serde.dumpsTyped(value);
        return {
          threadId,
          namespace,
          checkpointId,
          taskId,
          idx: Object.hasOwn(WRITES_IDX_MAP, channel) ? WRITES_IDX_MAP[channel]! : index,
          channel,
          taskPath: taskPath ?? '',
          value: { type, bytes },
        };
      }),
    );
    // A special channel written twice in one call: the last write stands (one row per index).
    const byIndex = new Map(rows.map((row) => [row.idx, row]));
    if (byIndex.size > 0) await this.rows.putWrites([...byIndex.values()]);
  }

  /**
   * The next channel version: a counter, zero-padded so versions sort as text, and a random suffix
   * (LangGraph's PostgreSQL saver does the same). Blobs are stored once per version, so two
   * branches of a thread (a fork with `updateState` on an older checkpoint, a replay) must never
   * make the same version: with plain counters the fork would read the other branch's values.
   */
  override getNextVersion(current: number | undefined): number {
    const counter =
      current === undefined
        ? 0
        : typeof current === 'number'
          ? current
          : Number.parseInt(String(current).split('.')[0]!, 10);
    // Typed as a number by LangGraph's base class; string versions are what its own savers use.
    return `${String(counter + 1).padStart(32, '0')}.${randomUUID()}` as unknown as number;
  }

  /** Removes every checkpoint and write of the thread. */
  async deleteThread(threadId: string): Promise<void> {
    await this.rows.deleteThread(checkpointKey('threadId', threadId));
  }

  private async toTuple(
    row: CheckpointRow,
    metadata?: CheckpointMetadata,
  ): Promise<CheckpointTuple> {
    const { threadId, namespace, checkpointId, parentId } = row;
    const checkpoint = (await this.load(row.checkpoint)) as Checkpoint;
    checkpoint.channel_values = await this.channelValues(threadId, namespace, checkpoint);
    if (checkpoint.v < 4 && parentId !== undefined)
      await this.migratePendingSends(checkpoint, threadId, namespace, parentId);
    const tuple: CheckpointTuple = {
      config: {
        configurable: {
          thread_id: threadId,
          checkpoint_ns: namespace,
          checkpoint_id: checkpointId,
        },
      },
      checkpoint,
      metadata: metadata ?? ((await this.load(row.metadata)) as CheckpointMetadata),
      pendingWrites: await this.pendingWrites(threadId, namespace, checkpointId),
    };
    if (parentId !== undefined)
      tuple.parentConfig = {
        configurable: { thread_id: threadId, checkpoint_ns: namespace, checkpoint_id: parentId },
      };
    return tuple;
  }

  /** The checkpoint's writes in LangGraph's one order (task path, task id, index). */
  private async pendingWrites(
    threadId: string,
    namespace: string,
    checkpointId: string,
  ): Promise<CheckpointPendingWrite[]> {
    const rows = await this.rows.writesOf(threadId, namespace, checkpointId);
    rows.sort((a, b) =>
      compareWritesSortKeys(
        writesSortKey(a.taskPath, a.taskId, a.idx),
        writesSortKey(b.taskPath, b.taskId, b.idx),
      ),
    );
    return Promise.all(
      rows.map(async (row): Promise<CheckpointPendingWrite> => [
        row.taskId,
        row.channel,
        await this.load(row.value),
      ]),
    );
  }

  /** The values of the channel versions the checkpoint holds, from their blobs. */
  private async channelValues(
    threadId: string,
    namespace: string,
    checkpoint: Checkpoint,
  ): Promise<Record<string, unknown>> {
    const wanted = Object.entries(checkpoint.channel_versions ?? {}).map(([channel, version]) => ({
      channel,
      version: String(version),
    }));
    const values: Record<string, unknown> = {};
    if (wanted.length === 0) return values;
    for (const blob of await this.rows.loadBlobs(threadId, namespace, wanted))
      if (blob.value && checkpoint.channel_versions[blob.channel] !== undefined)
        values[blob.channel] = await this.load(blob.value);
    return values;
  }

  /** Checkpoints before format 4 kept pending sends as the parent's `TASKS` writes. */
  private async migratePendingSends(
    checkpoint: Checkpoint,
    threadId: string,
    namespace: string,
    parentId: string,
  ): Promise<void> {
    const sends = (await this.pendingWrites(threadId, namespace, parentId))
      .filter(([, channel]) => channel === TASKS)
      .map(([, , value]) => value);
    checkpoint.channel_values ??= {};
    checkpoint.channel_values[TASKS] = sends;
    checkpoint.channel_versions ??= {};
    const versions = Object.values(checkpoint.channel_versions);
    checkpoint.channel_versions[TASKS] =
      versions.length > 0 ? maxChannelVersion(...versions) : this.getNextVersion(undefined);
  }

  private load(value: { type: string; bytes: Uint8Array }): Promise<unknown> {
    return this.serde.loadsTyped(value.type, value.bytes);
  }
}
