import type { ChatMessage, ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { LlmResponse, ToolChoice, ToolSpec, Usage } from '../interfaces/llm.interface.js';
import { LlmResponseError } from '../llm-errors.js';

/** A message in the chat-completions wire format. */
export interface OpenAiWireMessage {
  role: string;
  content: string | null;
  name?: string;
  tool_calls?: Array<{
    id: string;
    type: 'function';
    function: { name: string; arguments: string };
  }>;
  tool_call_id?: string;
}

/** Maps the library's messages to the chat-completions wire format. */
export function toOpenAiMessages(messages: ChatMessage[]): OpenAiWireMessage[] {
  return messages.map((message) => {
    const wire: OpenAiWireMessage = { role: message.role, content: message.content };
    if (message.name !== undefined && message.role !== 'tool') wire.name = message.name;
    if (message.toolCalls?.length) {
      wire.tool_calls = message.toolCalls.map((call) => ({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: call.arguments },
      }));
    }
    if (message.role === 'tool') {
      wire.tool_call_id = message.toolCallId;
      wire.content = message.content ?? '';
    }
    return wire;
  });
}

/** Maps tool specs to the `tools` field. */
export function toOpenAiTools(tools: ToolSpec[]): unknown[] {
  return tools.map((tool) => ({
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
}

/** Maps a tool choice to the `tool_choice` field. */
export function toOpenAiToolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'string'
    ? choice
    : { type: 'function', function: { name: choice.name } };
}

/** Reads `usage` (absent → zeros). */
export function fromOpenAiUsage(usage: unknown): Usage {
  const raw = (usage ?? {}) as Record<string, unknown>;
  const promptTokens = numberOr0(raw.prompt_tokens);
  const completionTokens = numberOr0(raw.completion_tokens);
  return {
    promptTokens,
    completionTokens,
    totalTokens: numberOr0(raw.total_tokens) || promptTokens + completionTokens,
  };
}

/** Reads a non-streamed completion, or throws `LlmResponseError` if it is not one. */
export function fromOpenAiCompletion(body: unknown): LlmResponse {
  const choice = (body as { choices?: Array<Record<string, unknown>> } | null)?.choices?.[0];
  const message = choice?.message as { content?: unknown; tool_calls?: unknown } | undefined;
  if (
    !message ||
    (message.content !== null &&
      message.content !== undefined &&
      typeof message.content !== 'string')
  ) {
    throw new LlmResponseError(
      'openai',
      undefined,
      `no assistant message in ${JSON.stringify(body).slice(0, 200)}`,
    );
  }
  const toolCalls = readToolCalls(message.tool_calls);
  return {
    message: {
      role: 'assistant',
      content: (message.content as string | null | undefined) ?? null,
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    },
    usage: fromOpenAiUsage((body as { usage?: unknown }).usage),
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined,
  };
}

function readToolCalls(raw: unknown): ToolCall[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw new LlmResponseError('openai', undefined, 'tool_calls is not an array');
  return raw.map((call: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }) => {
    if (typeof call?.id !== 'string' || typeof call.function?.name !== 'string') {
      throw new LlmResponseError(
        'openai',
        undefined,
        `malformed tool call ${JSON.stringify(call).slice(0, 200)}`,
      );
    }
    const args = call.function.arguments;
    return {
      id: call.id,
      name: call.function.name,
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    };
  });
}

function numberOr0(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}
