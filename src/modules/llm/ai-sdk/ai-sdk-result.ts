import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import { type ContentPart, compactContent } from '../../../common/messages/content-parts.js';
import type { LlmResponse, Usage } from '../interfaces/llm.interface.js';
import type { ModelOutputPart } from './ai-sdk-language-model.js';

/**
 * Collects a model's output parts (from `doGenerate`'s content, or a stream's parts as they come)
 * into one assistant message: text, reasoning kept as parts, tool calls with their JSON arguments.
 */
export class AssistantMessageBuilder {
  private readonly parts: ContentPart[] = [];
  private readonly toolCalls: ToolCall[] = [];
  private readonly reasoning = new Map<string, { text: string }>();

  /** Adds a complete part of `doGenerate`'s content. */
  addContent(part: ModelOutputPart): void {
    if (part.type === 'text' && typeof part.text === 'string') this.addText(part.text);
    else if (part.type === 'reasoning' && typeof part.text === 'string')
      this.parts.push(reasoningPart(part.text, part.providerMetadata));
    else if (part.type === 'tool-call') this.addToolCall(part);
  }

  /** Adds a text delta of a stream. */
  addText(text: string): void {
    const last = this.parts.at(-1);
    if (last?.type === 'text') last.text += text;
    else if (text !== '') this.parts.push({ type: 'text', text });
  }

  /** Follows a stream's reasoning parts (start, deltas, end with the provider's metadata). */
  addReasoning(part: ModelOutputPart): void {
    const id = part.id ?? '';
    if (part.type === 'reasoning-start') this.reasoning.set(id, { text: '' });
    const open = this.reasoning.get(id) ?? { text: '' };
    if (part.type === 'reasoning-delta') open.text += part.delta ?? '';
    this.reasoning.set(id, open);
    if (part.type === 'reasoning-end') {
      this.reasoning.delete(id);
      this.parts.push(reasoningPart(open.text, part.providerMetadata));
    }
  }

  /** Adds a finished tool call (its input is the JSON text the model wrote). */
  addToolCall(part: ModelOutputPart): void {
    const input = part.input;
    this.toolCalls.push({
      id: String(part.toolCallId),
      name: String(part.toolName),
      arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}),
    });
  }

  /** The assistant message: plain text when that is all there is, parts otherwise. */
  build(usage: unknown, finishReason: unknown): LlmResponse {
    const content = compactContent(this.parts);
    return {
      message: {
        role: 'assistant',
        content,
        ...(this.toolCalls.length ? { toolCalls: this.toolCalls } : {}),
      },
      usage: normalizeUsage(usage),
      ...optionalFinishReason(finishReason),
    };
  }
}

function reasoningPart(
  text: string,
  providerMetadata: Record<string, Record<string, unknown>> | undefined,
): ContentPart {
  return providerMetadata && Object.keys(providerMetadata).length
    ? { type: 'reasoning', text, providerMetadata }
    : { type: 'reasoning', text };
}

/** Token counts from any supported specification (v2's numbers, v3/v4's `{ total, … }`). */
export function normalizeUsage(raw: unknown): Usage {
  const usage = (raw ?? {}) as { inputTokens?: unknown; outputTokens?: unknown };
  const count = (value: unknown): number => {
    const total =
      typeof value === 'object' && value !== null ? (value as { total?: unknown }).total : value;
    return typeof total === 'number' && Number.isFinite(total) ? total : 0;
  };
  const promptTokens = count(usage.inputTokens);
  const completionTokens = count(usage.outputTokens);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}

const FINISH_REASONS: Record<string, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_calls',
  'content-filter': 'content_filter',
  error: 'error',
  interrupted: 'interrupted',
  other: 'other',
};

function optionalFinishReason(raw: unknown): { finishReason?: string } {
  const unified =
    typeof raw === 'object' && raw !== null ? (raw as { unified?: unknown }).unified : raw;
  if (typeof unified !== 'string' || unified === 'unknown') return {};
  return { finishReason: FINISH_REASONS[unified] ?? unified };
}
