/**
 * `nest-agent-memory/langgraph`: LangGraph.js on the package's storage — a checkpointer on every
 * backend (validated by LangGraph's own suite) and a LangGraph store over long-term memory.
 * Needs `@langchain/langgraph-checkpoint` (and `@langchain/core`) installed.
 */
export { AgentMemoryCheckpointSaver } from './agent-memory-checkpoint-saver.js';
export { AgentMemoryStore, type AgentMemoryStoreOptions } from './agent-memory-store.js';
export { MAX_CHECKPOINT_KEY_BYTES } from './checkpoint-keys.js';
export type {
  ChannelBlob,
  CheckpointCursor,
  CheckpointQuery,
  CheckpointRow,
  CheckpointRows,
  SerializedValue,
  WriteRow,
} from './checkpoint-rows.js';
export {
  type CheckpointSaverOptions,
  type OpenCheckpointSaverOptions,
  openCheckpointSaver,
} from './open-checkpoint-saver.js';
export {
  LangGraphModule,
  type LangGraphModuleExtras,
  type LangGraphModuleOptions,
} from './langgraph.module.js';
