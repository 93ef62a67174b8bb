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
  onTurnStart?(event: AgentEventBase & { attempt: number }): void;
  onTurnEnd?(event: AgentEventBase & { result: AgentRunResult }): void;
  onTurnError?(event: AgentEventBase & { error: unknown }): void;
  onLlmCall?(event: AgentEventBase & { round: number }): void;
  onLlmResult?(
    event: AgentEventBase & { round: number; response: LlmResponse; replayed: boolean },
  ): void;
  onToolCall?(event: AgentEventBase & { call: ToolCall }): void;
  onToolResult?(event: AgentEventBase & { result: ToolResultEvent }): void;
  onToken?(event: AgentEventBase & { text: string }): void;
}
