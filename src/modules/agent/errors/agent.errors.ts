import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/** `AgentModule` was given a kernel that has the memory filter: the agent manages memory itself. */
export class AgentKernelHasMemoryFilterError extends AgentMemoryError {
  constructor() {
    super(
      'The agent never uses memoryFilter: give AgentModule a kernel without it (history comes from the memory provider)',
    );
  }
}
