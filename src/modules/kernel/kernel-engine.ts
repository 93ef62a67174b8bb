import { Logger } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { streamOf } from '../../common/async-channel.js';
import type { ChatMessage, ToolCall } from '../../common/messages/chat-message.interface.js';
import { validateMessages } from '../../common/messages/message-validation.js';
import { KernelExecutionContext } from './context/kernel-execution-context.js';
import { FilterChain } from './filters/filter-chain.js';
import { type ChatScope, tokenPipeline } from './filters/token-pipeline.js';
import { MemoryFilter } from './filters/memory.filter.js';
import { SystemPromptFilter } from './filters/system-prompt.filter.js';
import type {
  KernelChatRequest,
  KernelContext,
  KernelFilter,
  KernelToolRequest,
  KernelToolResult,
} from './interfaces/kernel-filter.interface.js';
import type {
  InvokeOptions,
  InvokeResult,
  KernelStreamEvent,
} from './interfaces/kernel-invoke.interface.js';
import type { LlmAdapter, LlmResponse } from '../llm/interfaces/llm.interface.js';
import { FULL_HISTORY, STORE_DELTA_HISTORY } from './loop/history-strategy.js';
import { type ToolLoopOutcome, runToolLoop } from './loop/tool-loop.js';
import type { RegisteredTool } from './tools/registered-tool.js';
import type { ToolRegistry } from './tools/tool-registry.js';
import { runToolRound } from './tools/tool-round.js';
import { runToolCall, toolMessageContent } from './tools/tool-terminal.js';
import type { LoopRequest } from './loop/loop-request.js';
import { type ToolScope, toolCallContext } from './tools/tool-call-context.js';
import { duplicateCallIdResult } from './tools/unknown-tool.js';

/** Default tool rounds per invoke. */
export const DEFAULT_MAX_TOOL_ITERATIONS = 10;

/** What a kernel is built from (resolved: adapter and filter instances, a tool registry). */
export interface KernelEngineConfig {
  llm: LlmAdapter;
  /** In nesting order: the first is the outermost. */
  filters: readonly KernelFilter[];
  tools: ToolRegistry;
  maxToolIterations?: number;
}

const NEVER_ABORTED = new AbortController().signal;

/**
 * The stateless kernel, free of Nest wiring: two filter chains — around model calls and
 * around tool calls — composed once, and the tool loop. `KernelService` builds one per module.
 */
export class KernelEngine {
  private readonly logger = new Logger('Kernel');
  private readonly chatChain: FilterChain<KernelChatRequest, LlmResponse, ChatScope>;
  private readonly toolChain: FilterChain<KernelToolRequest, KernelToolResult, ToolScope>;
  private readonly filters: readonly KernelFilter[];
  private readonly llmClass: new (...args: never[]) => unknown;
  /** The memory filter, if configured: the kernel then runs in delta mode. */
  readonly memory?: MemoryFilter;
  readonly tools: ToolRegistry;
  readonly maxToolIterations: number;

  constructor(private readonly config: KernelEngineConfig) {
    this.filters = [...config.filters, new SystemPromptFilter()];
    this.memory = config.filters.find(
      (filter): filter is MemoryFilter => filter instanceof MemoryFilter,
    );
    this.tools = config.tools;
    this.maxToolIterations = config.maxToolIterations ?? DEFAULT_MAX_TOOL_ITERATIONS;
    this.llmClass = config.llm.constructor as new (...args: never[]) => unknown;
    this.chatChain = new FilterChain(this.filters, (context) => this.callModel(context));
    this.toolChain = new FilterChain(this.filters, (context) =>
      runToolCall(context.scope.tool, context.request),
    );
  }

  /** The model the kernel calls (without its filters: for a caller's own structured calls). */
  get llm(): LlmAdapter {
    return this.config.llm;
  }

  /** Runs an invoke to its final answer. */
  async invoke(
    messages: ChatMessage[],
    options: InvokeOptions = {},
    onEvent?: LoopRequest['onEvent'],
  ): Promise<InvokeResult> {
    validateMessages(messages);
    const invokeId = randomUUID();
    const context: KernelContext = { ...options.context };
    const ephemeral = this.memory !== undefined && !context.conversationId;
    if (ephemeral) context.conversationId = `ephemeral:${invokeId}`;
    try {
      const outcome = await this.runLoop({
        runId: invokeId,
        input: messages,
        history: this.memory ? STORE_DELTA_HISTORY : FULL_HISTORY,
        ids: (round, index) => `${invokeId}:${round}:${index}`,
        context,
        tools: options.tools,
        toolChoice: options.toolChoice,
        systemPrompts: options.systemPrompts,
        maxToolIterations: options.maxToolIterations,
        signal: options.signal,
        onEvent,
      });
      // An ephemeral id is cleared when the invoke ends: handing it back would let a caller thread
      // it into the next invoke, where it would become a conversation that is never cleared.
      return {
        message: outcome.reply,
        messages: outcome.messages,
        usage: outcome.usage,
        context: ephemeral ? { ...options.context } : context,
      };
    } finally {
      if (ephemeral) await this.clearEphemeral(context.conversationId!);
    }
  }

  /** Streams an invoke: tokens and tool events as they happen, then `{ type: 'result' }`. */
  invokeStream(
    messages: ChatMessage[],
    options: InvokeOptions = {},
  ): AsyncIterable<KernelStreamEvent> {
    return streamOf(
      (emit) => this.invoke(messages, options, emit),
      (result): KernelStreamEvent => ({ type: 'result', result }),
    );
  }

  /** The tool loop through this kernel's chains, with the caller's history strategy and ids. */
  runLoop(request: LoopRequest): Promise<ToolLoopOutcome> {
    const tools = this.tools.select(request.tools);
    const signal = request.signal ?? NEVER_ABORTED;
    return runToolLoop(
      {
        input: request.input,
        ids: request.ids,
        history: request.history,
        maxToolIterations: request.maxToolIterations ?? this.maxToolIterations,
        signal: request.signal,
      },
      {
        callModel: (messages, round, replyId) => {
          const compute = () => this.modelStep(request, tools, messages, round, replyId);
          return request.replay ? request.replay.model(round, compute) : compute();
        },
        runTools: (calls, round) =>
          runToolRound(
            calls,
            (call) => tools.get(call.name)?.serial ?? false,
            (call, index) => {
              // A call id shared by two calls of one message would share their idempotency key.
              if (calls.findIndex((other) => other.id === call.id) !== index)
                return Promise.resolve(duplicateCallIdResult(call));
              const compute = () =>
                this.runTool(call, round, index, tools.get(call.name), request, signal);
              return request.replay ? request.replay.tool(round, index, call, compute) : compute();
            },
          ),
        toolMessage: (call: ToolCall, outcome) => ({
          role: 'tool',
          content: toolMessageContent(outcome),
          toolCallId: call.id,
          name: call.name,
        }),
        onEvent: request.onEvent,
      },
    );
  }

  /** One model call of the loop, through the chat chain (streamed when the caller listens). */
  private modelStep(
    request: LoopRequest,
    tools: ToolRegistry,
    messages: ChatMessage[],
    round: number,
    replyId: string,
  ): Promise<LlmResponse> {
    const chatRequest: KernelChatRequest = {
      messages,
      tools: tools.specs,
      toolChoice: request.toolChoice,
      systemPrompts: request.systemPrompts ?? [],
      ...(request.memoryContext?.length ? { memoryContext: request.memoryContext } : {}),
      context: request.context,
      invokeId: request.runId,
      round,
      replyId,
      ...(this.config.llm.info ? { model: this.config.llm.info } : {}),
      signal: request.signal,
    };
    const streaming =
      (request.stream ?? request.onEvent !== undefined) && request.onEvent !== undefined;
    const scope: ChatScope = {};
    const context = new KernelExecutionContext<KernelChatRequest, ChatScope>(
      'kernel-chat',
      [chatRequest],
      this.llmClass,
      streaming ? this.config.llm.stream : this.config.llm.chat,
      scope,
    );
    if (streaming) Object.assign(scope, tokenPipeline(this.filters, context, request.onEvent!));
    return this.chatChain.run(context);
  }

  private async callModel(
    context: KernelExecutionContext<KernelChatRequest, ChatScope>,
  ): Promise<LlmResponse> {
    const { messages, tools, toolChoice, signal, replyId } = context.request;
    const llmRequest = { messages, tools, toolChoice, signal, requestId: replyId };
    const { onToken, flush } = context.scope;
    const response = onToken
      ? await this.config.llm.stream(llmRequest, onToken)
      : await this.config.llm.chat(llmRequest);
    flush?.();
    return { ...response, message: { ...response.message, id: replyId } };
  }

  private runTool(
    call: ToolCall,
    round: number,
    index: number,
    tool: RegisteredTool | undefined,
    request: LoopRequest,
    signal: AbortSignal,
  ): Promise<KernelToolResult> {
    return this.toolChain.run(toolCallContext(call, { round, index }, tool, request, signal));
  }

  private async clearEphemeral(conversationId: string): Promise<void> {
    try {
      await this.memory!.store.clear(conversationId);
    } catch (error) {
      this.logger.warn(
        `Could not clear ephemeral conversation ${conversationId}: ${String(error)}`,
      );
    }
  }
}
