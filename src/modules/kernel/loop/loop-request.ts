import type { ChatMessage, ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { LlmResponse } from '../../llm/interfaces/llm.interface.js';
import type { KernelContext, KernelToolResult } from '../interfaces/kernel-filter.interface.js';
import type { InvokeOptions, KernelStreamEvent } from '../interfaces/kernel-invoke.interface.js';
import type { ToolContext } from '../interfaces/kernel-tool.interface.js';
import type { ToolSelection } from '../tools/tool-registry.js';
import type { HistoryStrategy } from './history-strategy.js';
import type { MessageIdScheme } from './tool-loop.js';

/** One run of the loop through the kernel's chains: what the kernel's invoke and the agent share. */
export interface LoopRequest {
  runId: string;
  /**
   * What tool idempotency keys start with (default `runId`). The agent's conflict retries are new
   * attempts with fresh model calls: they use `runId/attempt`, so their calls never share a key
   * with the first attempt's.
   */
  attemptKey?: string;
  input: readonly ChatMessage[];
  history: HistoryStrategy;
  ids: MessageIdScheme;
  context: KernelContext;
  tools?: ToolSelection;
  toolChoice?: InvokeOptions['toolChoice'];
  systemPrompts?: string[];
  /** Data for the model (recalled memory), sent as user-role messages: see `KernelChatRequest`. */
  memoryContext?: string[];
  maxToolIterations?: number;
  signal?: AbortSignal;
  /**
   * Extra fields of each tool call's context (the agent's long-term view, working memory). A call is
   * named by its round and its position in the round: call ids repeat across rounds.
   */
  toolContext?: (
    call: ToolCall,
    round: number,
    index: number,
  ) => Pick<ToolContext, 'longterm' | 'workingMemory'>;
  /** Receives tokens and tool events. */
  onEvent?: (event: KernelStreamEvent) => void;
  /** Stream model calls (tokens go to `onEvent`); default: whether `onEvent` is given. */
  stream?: boolean;
  /**
   * Wraps each step: given the step's identity and how to compute it (through the filter chain),
   * it may return a recorded result instead — the agent's replay cache.
   */
  replay?: StepReplay;
}

/** How a caller records and replays the loop's steps. */
export interface StepReplay {
  model(round: number, compute: () => Promise<LlmResponse>): Promise<LlmResponse>;
  /** A tool step, named by its round and its position in the round (call ids repeat across rounds). */
  tool(
    round: number,
    index: number,
    call: ToolCall,
    compute: () => Promise<KernelToolResult>,
  ): Promise<KernelToolResult>;
}
