import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import { KernelExecutionContext } from '../context/kernel-execution-context.js';
import type { KernelToolRequest } from '../interfaces/kernel-filter.interface.js';
import type { LoopRequest } from '../loop/loop-request.js';
import type { RegisteredTool } from './registered-tool.js';
import { UnknownKernelTool, unknownToolHandler } from './unknown-tool.js';

/** What a tool call carries through the tool chain: the tool, if the kernel has it. */
export interface ToolScope {
  tool?: RegisteredTool;
}

/**
 * The execution context of one tool call, as filters see it: the request (name, JSON arguments,
 * the tool context with its idempotency key) and the tool's class and method for `Reflector`.
 */
export function toolCallContext(
  call: ToolCall,
  position: { round: number; index: number },
  tool: RegisteredTool | undefined,
  request: LoopRequest,
  signal: AbortSignal,
): KernelExecutionContext<KernelToolRequest, ToolScope> {
  const { round, index } = position;
  const toolRequest: KernelToolRequest = {
    name: call.name,
    known: tool !== undefined,
    arguments: call.arguments,
    toolCallId: call.id,
    context: {
      runId: request.runId,
      conversationId: request.context.conversationId,
      entityId: request.context.entityId,
      toolCallId: call.id,
      // Call ids are unique only within one model message: the round makes the key unique.
      idempotencyKey: `${request.attemptKey ?? request.runId}:${round}:${call.id}`,
      signal,
      ...request.toolContext?.(call, round, index),
    },
  };
  return new KernelExecutionContext<KernelToolRequest, ToolScope>(
    'kernel-tool',
    [toolRequest],
    tool?.targetClass ?? UnknownKernelTool,
    tool?.targetHandler ?? unknownToolHandler,
    { tool },
  );
}
