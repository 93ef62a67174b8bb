import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';

/** A tool as the model sees it: name, description and JSON Schema of its arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema (an object schema) of the arguments. */
  parameters: Record<string, unknown>;
}

/** How the model may use tools: freely, not at all, at least one, or one named tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** Token counts of one or more model calls. */
export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

/** One call to a chat model. */
export interface LlmRequest {
  /** The whole conversation to send, oldest first (system messages included). */
  messages: ChatMessage[];
  tools?: ToolSpec[];
  toolChoice?: ToolChoice;
  /** Cancels the call (and its retries). */
  signal?: AbortSignal;
  /**
   * A stable name of this model call: the id its reply is stored under, the same on every retry and
   * replay of the step and unique within the conversation. An adapter that must invent ids (tool-call
   * ids of an offline model) derives them from it.
   */
  requestId?: string;
}

/** What a chat model answered. */
export interface LlmResponse {
  /** The assistant message: text, tool calls, or both. */
  message: ChatMessage & { role: 'assistant' };
  usage: Usage;
  /** The provider's stop reason, normalized where known (`stop`, `tool_calls`, `length`). */
  finishReason?: string;
}

/** What an adapter says about its model. */
export interface LlmInfo {
  /** e.g. `openai`, `anthropic`, `echo`. */
  provider: string;
  model?: string;
}

/** Receives streamed text as it arrives. */
export type TokenSink = (token: string) => void;

/**
 * A chat model. `chat` answers at once; `stream` calls `onToken` for each text token as it arrives
 * and resolves with the same final response. Adapters retry transient failures themselves (before
 * the first streamed token only) and throw typed `LlmError`s.
 */
export interface LlmAdapter {
  /**
   * Which model answers, for traces and metrics (`gen_ai.provider.name`, `gen_ai.request.model`);
   * optional for adapters of your own.
   */
  readonly info?: LlmInfo;
  /** Sends the request and resolves with the whole answer. */
  chat(request: LlmRequest): Promise<LlmResponse>;
  /**
   * Sends the request, calls `onToken` with each text token as it arrives, and resolves with the
   * final response, as `chat` does.
   */
  stream(request: LlmRequest, onToken: TokenSink): Promise<LlmResponse>;
  /**
   * Optional: resolves once the adapter can take calls (its provider package loaded), rejects with
   * why it cannot. The modules await it at bootstrap, so a missing package fails the start.
   */
  ready?(): Promise<void>;
}

/** Zero usage, the identity of {@link addUsage}. */
export const NO_USAGE: Readonly<Usage> = Object.freeze({
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
});

/** Sums two usages. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
  };
}
