import type { AgentMemoryStoreOptions } from './agent-memory-store.js';
import type { CheckpointSaverOptions } from './open-checkpoint-saver.js';

/** Options of `LangGraphModule.forRoot`. */
export interface LangGraphModuleOptions extends CheckpointSaverOptions {
  /**
   * The LangGraph store over long-term memory (needs `LongtermMemoryModule` in the app): its
   * options, or `false` for the checkpointer alone (the `AgentMemoryStore` provider is then `null`).
   */
  store?: AgentMemoryStoreOptions | false;
}

/** Extras of `LangGraphModule.forRoot`. */
export interface LangGraphModuleExtras {
  /** Make the providers injectable everywhere without importing the module (default `true`). */
  isGlobal?: boolean;
}
