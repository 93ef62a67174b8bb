import type { CheckpointMetadata } from '@langchain/langgraph-checkpoint';
import type { RunnableConfig } from '@langchain/core/runnables';
import { checkpointKey } from './checkpoint-keys.js';
import type { CheckpointQuery } from './checkpoint-rows.js';

/** The checkpoint namespace `config` names (`''` for none), checked. */
export function namespaceOf(config: RunnableConfig): string {
  return checkpointKey('checkpoint_ns', config.configurable?.checkpoint_ns ?? '', true);
}

/** The checkpoint id `config` names, checked; `undefined` for none. */
export function checkpointIdOf(config: RunnableConfig): string | undefined {
  const id = config.configurable?.checkpoint_id as unknown;
  return id === undefined || id === null || id === ''
    ? undefined
    : checkpointKey('checkpoint_id', id);
}

/** What `list` asks the rows for: `config`'s thread, namespace and id, before `before`'s id. */
export function listQuery(
  config: RunnableConfig,
  before: RunnableConfig | undefined,
): CheckpointQuery {
  const configurable = config.configurable ?? {};
  const query: CheckpointQuery = {};
  if (configurable.thread_id !== undefined)
    query.threadId = checkpointKey('thread_id', configurable.thread_id);
  if (configurable.checkpoint_ns !== undefined)
    query.namespace = checkpointKey('checkpoint_ns', configurable.checkpoint_ns, true);
  const checkpointId = checkpointIdOf(config);
  if (checkpointId !== undefined) query.checkpointId = checkpointId;
  const beforeId = before && checkpointIdOf(before);
  if (beforeId !== undefined) query.before = beforeId;
  return query;
}

/** A checkpoint metadata's own value under `key` (never one of its prototype). */
export function metadataValue(metadata: CheckpointMetadata, key: string): unknown {
  return Object.hasOwn(metadata, key) ? (metadata as Record<string, unknown>)[key] : undefined;
}
