import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { Usage } from '../../llm/interfaces/llm.interface.js';

/** Where a step sits in its run. */
interface AgentStepPosition {
  /** The attempt scope: 0, then one more for each conflict retry (which calls the model afresh). */
  scope: number;
  /** The model round of the tool loop (0 first). */
  round: number;
  /** Whether a later attempt served this step from the run cache instead of doing it again. */
  replayed: boolean;
}

/** A model call of a run, as the run cache recorded it. */
export interface AgentModelStep extends AgentStepPosition {
  type: 'model';
  content: ChatMessage['content'];
  toolCalls: ToolCall[];
  usage: Usage;
  finishReason?: string;
}

/** A tool call of a run and its outcome, as the run cache recorded it. */
export interface AgentToolStep extends AgentStepPosition {
  type: 'tool';
  /** The position of the call among the round's calls. */
  index: number;
  /** The call the model made (from the round's model step). */
  call?: ToolCall;
  result?: unknown;
  error?: string;
  /** The long-term rows the step staged (written only when the run flushed). */
  staged: Array<{ key: string; value: unknown }>;
}

/** A run's long-term flush: the keys written, and those the seq guard refused as stale. */
export interface AgentRunFlush {
  entityId: string;
  seq: number;
  flushed: string[];
  refused: string[];
}

/** What a run did, step by step: `AgentService.runSteps`. */
export interface AgentRunSteps {
  runId: string;
  conversationId: string;
  /** Model and tool steps by scope, round, then the model call before its tool calls. */
  steps: Array<AgentModelStep | AgentToolStep>;
  /** The long-term flush of the committed turn, when the run had an entity. */
  longterm?: AgentRunFlush;
}
