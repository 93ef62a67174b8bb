import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/** `AgentModule` was given a kernel that has the memory filter: the agent manages memory itself. */
export class AgentKernelHasMemoryFilterError extends AgentMemoryError {
  constructor() {
    super(
      'The agent never uses memoryFilter: give AgentModule a kernel without it (history comes from the memory provider)',
    );
  }
}

/**
 * A run id already belongs to another conversation. Run ids key a run's records and replay cache,
 * so reusing one across conversations is refused (the message does not say whose it is).
 */
export class RunBelongsToAnotherConversationError extends AgentMemoryError {
  constructor(readonly runId: string) {
    super(`Run "${runId}" belongs to another conversation: use a new runId for this one`);
  }
}
