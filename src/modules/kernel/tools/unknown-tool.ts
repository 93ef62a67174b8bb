import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { KernelToolResult } from '../interfaces/kernel-filter.interface.js';

/** The result of a call whose id an earlier call of the same message already holds: not run. */
export function duplicateCallIdResult(call: ToolCall): KernelToolResult {
  return {
    error: `tool call id "${call.id}" is used by an earlier call of the same message; this call was not run`,
  };
}

/** What `getClass()` reports for a call to a tool the kernel does not have. */
export class UnknownKernelTool {}

export function unknownToolHandler(): never {
  throw new Error('unknown tool');
}
