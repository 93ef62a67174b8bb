import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { ContentPart } from '../../../common/messages/content-parts.js';
import type { KernelStreamEvent } from '../../kernel/interfaces/kernel-invoke.interface.js';
import type { Usage } from '../../llm/interfaces/llm.interface.js';

/** One turn to run. */
export interface AgentRunInput {
  conversationId: string;
  entityId?: string;
  /** The user's message: its text, its parts (text, image, file), or a `user` message. */
  message: string | ContentPart[] | ChatMessage;
  /** Names the run; every attempt of one run shares it (default: a new UUID). */
  runId?: string;
  /** Aborting it fails the run (nothing is stored). */
  signal?: AbortSignal;
  /** The run's long-term `seq`, fixed when the run was created. */
  seq?: number;
}

/** A tool call of the turn, with what it returned. */
export interface AgentToolCall {
  id: string;
  name: string;
  arguments: string;
  result?: unknown;
  error?: string;
}

/** What a committed turn resolves to. */
export interface AgentRunResult {
  runId: string;
  conversationId: string;
  /** The final assistant message. */
  reply: ChatMessage;
  /** The turn's stored messages, ids `runId:i`. */
  messages: ChatMessage[];
  toolCalls: AgentToolCall[];
  usage: Usage;
  /**
   * The conversation's version right after this turn's commit: the position of the turn's last
   * message (also when a retried attempt found the turn already stored); 0 without memory.
   */
  version: number;
  /** Long-term rows flushed after the commit, and refused as stale. */
  longterm: { flushed: number; refused: number };
}

/** What `AgentService.stream` yields: the kernel's events, then the run's result. */
export type AgentStreamEvent =
  Exclude<KernelStreamEvent, { type: 'result' }> | { type: 'result'; result: AgentRunResult };

/** How a run stands, readable by `runId`. */
export type AgentRunStatus = 'queued' | 'running' | 'completed' | 'failed';

/** The record of a run. */
export interface AgentRunRecord {
  runId: string;
  conversationId: string;
  status: AgentRunStatus;
  result?: AgentRunResult;
  /** The last error: the final one once `failed`, else the one a retry is waiting out. */
  error?: { name: string; message: string };
  /** How many attempts started (retries of a queued run count); absent before the first. */
  attempts?: number;
  createdAt: number;
  updatedAt: number;
}
