import type { ChatMessage, ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { KernelContext } from './kernel-filter.interface.js';
import type { KernelToolDefinition } from './kernel-tool.interface.js';
import type { LlmResponse, ToolChoice, Usage } from '../../llm/interfaces/llm.interface.js';

/** Options of `KernelService.invoke` / `invokeStream`. */
export interface InvokeOptions {
  /** The conversation (`conversationId`) and any state of yours, visible to filters and tools. */
  context?: KernelContext;
  /**
   * This invoke's tools: names pick a subset of the kernel's; plain tool objects are added (to the
   * named subset, or to all of the kernel's tools when no name is listed); `[]` offers none.
   */
  tools?: Array<string | KernelToolDefinition>;
  toolChoice?: ToolChoice;
  /** Prepended to what the model sees, after history expansion; never stored. */
  systemPrompts?: string[];
  /** Tool rounds allowed before `MaxToolIterationsError` (default: the kernel's, 10). */
  maxToolIterations?: number;
  signal?: AbortSignal;
}

/** What an invoke resolves to. */
export interface InvokeResult {
  /** The final assistant message (no tool calls). */
  message: ChatMessage;
  /** Every message of this invoke, in order: the input, each reply, each tool result (ids stamped). */
  messages: ChatMessage[];
  /** Summed over the invoke's model calls. */
  usage: Usage;
  /**
   * The context as used. An ephemeral conversation id (delta mode without a `conversationId`) is
   * not in it: that conversation is cleared when the invoke ends, so the context can be passed into
   * the next invoke without turning the ephemeral id into a conversation that is never cleared.
   */
  context: KernelContext;
}

/** One tool call's outcome, as the stream reports it. */
export interface ToolResultEvent {
  type: 'tool_result';
  toolCallId: string;
  name: string;
  result?: unknown;
  error?: string;
}

/** What `invokeStream` yields: tokens and tool events as they happen, then the result. */
export type KernelStreamEvent =
  | { type: 'token'; text: string }
  | { type: 'tool_call'; call: ToolCall }
  | ToolResultEvent
  | { type: 'result'; result: InvokeResult };

/** The model's reply of one round, as the loop passes it on. */
export type RoundReply = LlmResponse;
