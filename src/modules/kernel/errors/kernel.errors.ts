import { AgentMemoryError } from '../../../common/errors/agent-memory.error.js';

/** The model still asked for tools after the allowed number of tool rounds. */
export class MaxToolIterationsError extends AgentMemoryError {
  constructor(readonly maxToolIterations: number) {
    super(
      `The model still asked for tools after ${maxToolIterations} tool rounds (maxToolIterations)`,
    );
  }
}

/** Two tools share a name (raised at bootstrap). */
export class DuplicateToolError extends AgentMemoryError {
  constructor(
    readonly toolName: string,
    where: string[],
  ) {
    super(`Tool name "${toolName}" is used more than once: ${where.join(', ')}`);
  }
}

/** A tool definition is invalid: its name, or a JSON Schema that does not compile (bootstrap). */
export class InvalidToolError extends AgentMemoryError {
  constructor(
    readonly toolName: string,
    problem: string,
  ) {
    super(`Tool "${toolName}": ${problem}`);
  }
}

/** `forRoot({ tools })` or an invoke's `tools` names a tool the kernel does not have. */
export class UnknownToolError extends AgentMemoryError {
  constructor(readonly toolName: string) {
    super(
      `No tool named "${toolName}" is registered (discovered @KernelTool methods or plain tools)`,
    );
  }
}

/** The invoke's `signal` fired. */
export class KernelAbortedError extends AgentMemoryError {
  constructor(reason?: unknown) {
    super(`The invoke was aborted${reason instanceof Error ? `: ${reason.message}` : ''}`, {
      cause: reason,
    });
  }
}
