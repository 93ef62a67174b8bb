import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { ToolResultEvent } from '../../kernel/interfaces/kernel-invoke.interface.js';
import type { LlmResponse } from '../../llm/interfaces/llm.interface.js';
import type { AgentRunResult } from './agent-run.interface.js';

/** Identifies the run an event belongs to. */
export interface AgentEventBase {
  runId: string;
  conversationId: string;
}

/**
 * Callbacks on a run's life (`AgentModule.forRoot({ events })`). They are called synchronously;
 * one that throws is logged and never breaks the turn. `replayed` marks a step served from the run
 * cache on a later attempt.
 */
export interface AgentEvents {
  /**
   * An attempt of the turn begins; `attempt` is 0 at first and one more for each retry after
   * another turn of the conversation committed first.
   */
  onTurnStart?(event: AgentEventBase & { attempt: number }): void;
  /** The turn committed; `result` is what the run resolves with. */
  onTurnEnd?(event: AgentEventBase & { result: AgentRunResult }): void;
  /** The turn failed (after any conflict retries); `error` is then thrown to the caller. */
  onTurnError?(event: AgentEventBase & { error: unknown }): void;
  /** A model call of tool round `round` (0 for the first) begins, or is replayed from the cache. */
  onLlmCall?(event: AgentEventBase & { round: number }): void;
  /** The model answered round `round`; `replayed` is true when the answer came from the cache. */
  onLlmResult?(
    event: AgentEventBase & { round: number; response: LlmResponse; replayed: boolean },
  ): void;
  /** The model called a tool; emitted for every call of a round before the round's tools run. */
  onToolCall?(event: AgentEventBase & { call: ToolCall }): void;
  /** A tool call finished, with its result or its error. */
  onToolResult?(event: AgentEventBase & { result: ToolResultEvent }): void;
  /** A text token as the model streams it (streamed turns only). */
  onToken?(event: AgentEventBase & { text: string }): void;
}
