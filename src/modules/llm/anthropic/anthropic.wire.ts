import type { ChatMessage, ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { LlmResponse, ToolChoice, ToolSpec, Usage } from '../interfaces/llm.interface.js';
import { LlmResponseError } from '../llm-errors.js';

/** A content block of the Messages API. */
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

/** A message of the Messages API: strictly alternating user/assistant turns of blocks. */
export interface AnthropicWireMessage {
  role: 'user' | 'assistant';
  content: AnthropicBlock[];
}

/**
 * Maps the library's messages to the Messages API: system messages become the separate `system`
 * text; tool results become `tool_result` blocks of a user turn, tool calls `tool_use` blocks;
 * consecutive messages of one side are merged, since the API wants strict alternation.
 */
export function toAnthropicRequest(messages: ChatMessage[]): {
  system?: string;
  messages: AnthropicWireMessage[];
} {
  const system = messages.filter((m) => m.role === 'system').map((m) => m.content ?? '');
  const wire: AnthropicWireMessage[] = [];
  for (const message of messages) {
    if (message.role === 'system') continue;
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(message);
    if (blocks.length === 0) continue;
    const last = wire.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else wire.push({ role, content: blocks });
  }
  return { ...(system.length ? { system: system.join('\n\n') } : {}), messages: wire };
}

function toBlocks(message: ChatMessage): AnthropicBlock[] {
  if (message.role === 'tool') {
    return [
      {
        type: 'tool_result',
        tool_use_id: message.toolCallId ?? '',
        content: message.content ?? '',
      },
    ];
  }
  const blocks: AnthropicBlock[] = message.content ? [{ type: 'text', text: message.content }] : [];
  for (const call of message.toolCalls ?? []) {
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.name,
      input: parseInput(call.arguments),
    });
  }
  return blocks;
}

function parseInput(text: string): unknown {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? value : {};
  } catch {
    return {};
  }
}

/** Maps tool specs to the `tools` field. */
export function toAnthropicTools(tools: ToolSpec[]): unknown[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.parameters,
  }));
}

/** Maps a tool choice to the `tool_choice` field. */
export function toAnthropicToolChoice(choice: ToolChoice): unknown {
  if (typeof choice !== 'string') return { type: 'tool', name: choice.name };
  return { type: { auto: 'auto', none: 'none', required: 'any' }[choice] };
}

/** Normalizes Anthropic stop reasons to the OpenAI-style names the kernel reports. */
export function normalizeStopReason(reason: unknown): string | undefined {
  if (typeof reason !== 'string') return undefined;
  return (
    { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length', stop_sequence: 'stop' }[
      reason
    ] ?? reason
  );
}

/** Reads `usage` (absent → zeros). */
export function fromAnthropicUsage(
  usage: unknown,
  base: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
): Usage {
  const raw = (usage ?? {}) as Record<string, unknown>;
  const promptTokens = typeof raw.input_tokens === 'number' ? raw.input_tokens : base.promptTokens;
  const completionTokens =
    typeof raw.output_tokens === 'number' ? raw.output_tokens : base.completionTokens;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

/** Reads a non-streamed response, or throws `LlmResponseError`. */
export function fromAnthropicMessage(body: unknown): LlmResponse {
  const content = (body as { content?: unknown } | null)?.content;
  if (!Array.isArray(content)) {
    throw new LlmResponseError(
      'anthropic',
      undefined,
      `no content in ${JSON.stringify(body).slice(0, 200)}`,
    );
  }
  let text: string | null = null;
  const toolCalls: ToolCall[] = [];
  for (const block of content as Array<Record<string, unknown>>) {
    if (block.type === 'text' && typeof block.text === 'string') text = (text ?? '') + block.text;
    else if (block.type === 'tool_use') toolCalls.push(toolCallOf(block));
  }
  return {
    message: { role: 'assistant', content: text, ...(toolCalls.length ? { toolCalls } : {}) },
    usage: fromAnthropicUsage((body as { usage?: unknown }).usage),
    finishReason: normalizeStopReason((body as { stop_reason?: unknown }).stop_reason),
  };
}

/** A `tool_use` block as a tool call, or `LlmResponseError` if malformed. */
export function toolCallOf(block: Record<string, unknown>, inputJson?: string): ToolCall {
  if (typeof block.id !== 'string' || typeof block.name !== 'string') {
    throw new LlmResponseError(
      'anthropic',
      undefined,
      `malformed tool_use block ${JSON.stringify(block).slice(0, 200)}`,
    );
  }
  return {
    id: block.id,
    name: block.name,
    arguments: inputJson || JSON.stringify(block.input ?? {}),
  };
}
