import type { ExecutionContext, NestInterceptor } from '@nestjs/common';
import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { LlmInfo, ToolChoice, ToolSpec } from '../../llm/interfaces/llm.interface.js';
import type { ToolContext } from './kernel-tool.interface.js';

/** What an invoke carries through its filters: the conversation, and any state of the caller's. */
export interface KernelContext {
  conversationId?: string;
  entityId?: string;
  [key: string]: unknown;
}

/** The request of the `kernel-chat` phase: `context.getArgs()[0]`. */
export interface KernelChatRequest {
  /** The messages to send (a delta in delta mode, until the memory filter expands it). */
  messages: ChatMessage[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  /** System prompts the innermost filter prepends; never stored. */
  systemPrompts: string[];
  /**
   * Data for the model, such as recalled memory: the innermost filter sends each as a user-role
   * message right before the last user message — quoted data, never system text; never stored.
   */
  memoryContext?: string[];
  context: KernelContext;
  invokeId: string;
  /** 0 for the first model call of the invoke, then one more per tool round. */
  round: number;
  /** The id the kernel gives this round's reply, fixed before the chain runs. */
  replyId: string;
  /** The model that answers, as its adapter describes it (when it does). */
  model?: LlmInfo;
  signal?: AbortSignal;
}

/** The request of the `kernel-tool` phase: `context.getArgs()[0]`. */
export interface KernelToolRequest {
  /** The name the model called (any text: a tool the kernel lacks is answered with an error). */
  name: string;
  /** Whether the kernel has a tool of that name. */
  known: boolean;
  /** The arguments as the model wrote them (JSON text); parsed and validated innermost. */
  arguments: string;
  toolCallId: string;
  context: ToolContext;
}

/** What the `kernel-tool` phase emits: a result, or an error the model will read. */
export interface KernelToolResult {
  result?: unknown;
  error?: string;
}

/**
 * Rewrites or holds streamed tokens on their way to the caller (e.g. redaction). It sees each
 * token and returns what to pass on (`''` holds it); `flush` releases what it held when the model
 * call ends. It never changes the final message; a filter that wants that replaces the result in
 * `intercept`.
 */
export interface TokenTransform {
  /** Takes the next token and returns the text to pass on now (`''` holds it back). */
  push(token: string): string;
  /** Optional: called once the model call has ended; returns what is still held, to pass on. */
  flush?(): string;
}

/**
 * A kernel filter: a Nest interceptor run around every model call (`context.getType()` is
 * `'kernel-chat'`) and every tool call (`'kernel-tool'`). `next.handle()` emits exactly one value:
 * the `LlmResponse` or the `KernelToolResult`. Optionally it adds a token transform when streaming.
 */
export interface KernelFilter extends NestInterceptor {
  /**
   * Optional: a transform for the tokens of one streamed model call, created as that call starts
   * (`context` is its `kernel-chat` context); `undefined` passes the tokens on unchanged. Tokens go
   * through the innermost filter's transform first.
   */
  createTokenTransform?(context: ExecutionContext): TokenTransform | undefined;
}
