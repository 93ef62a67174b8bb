import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import { type ContentPart, compactContent } from '../../../common/messages/content-parts.js';
import type { ProviderMetadata } from '../../../common/messages/provider-metadata.js';
import type { LlmResponse, Usage } from '../interfaces/llm.interface.js';
import type { ModelOutputPart } from './ai-sdk-language-model.js';

/**
 * Collects a model's output parts (from `doGenerate`'s content, or a stream's parts as they come)
 * into one assistant message: text, reasoning kept as parts, tool calls with their JSON arguments.
 */
export class AssistantMessageBuilder {
  private readonly parts: ContentPart[] = [];
  private readonly toolCalls: ToolCall[] = [];
  private readonly reasoning = new Map<string, { text: string; meta?: ProviderMetadata }>();

  /** Adds a complete part of `doGenerate`'s content. */
  addContent(part: ModelOutputPart): void {
    if (part.type === 'text' && typeof part.text === 'string')
      this.addText(part.text, part.providerMetadata);
    else if (part.type === 'reasoning' && typeof part.text === 'string')
      this.parts.push(reasoningPart(part.text, part.providerMetadata));
    else if (part.type === 'tool-call') this.addToolCall(part);
  }

  /** Adds text (a stream's delta), and the metadata its stream parts carry. */
  addText(text: string, providerMetadata?: ProviderMetadata): void {
    let last = this.parts.at(-1);
    if (last?.type !== 'text') {
      if (text === '' && !providerMetadata) return;
      last = { type: 'text', text: '' };
      this.parts.push(last);
    }
    last.text += text;
    if (providerMetadata) last.providerMetadata = merged(last.providerMetadata, providerMetadata);
  }

  /**
   * Follows a stream's reasoning parts. Providers put their metadata on any of them (Anthropic: the
   * signature on a delta, redacted data on the start): it is merged per provider, later wins.
   */
  addReasoning(part: ModelOutputPart): void {
    const id = part.id ?? '';
    const open = (part.type === 'reasoning-start' ? undefined : this.reasoning.get(id)) ?? {
      text: '',
    };
    if (part.type === 'reasoning-delta') open.text += part.delta ?? '';
    if (part.providerMetadata) open.meta = merged(open.meta, part.providerMetadata);
    this.reasoning.set(id, open);
    if (part.type === 'reasoning-end') {
      this.reasoning.delete(id);
      this.parts.push(reasoningPart(open.text, open.meta));
    }
  }

  /**
   * Adds a finished tool call (its input is the JSON text the model wrote). A call the provider ran
   * itself (`providerExecuted`) is not the app's to answer: it is left out.
   */
  addToolCall(part: ModelOutputPart): void {
    if (part.providerExecuted === true) return;
    const input = part.input;
    this.toolCalls.push({
      id: String(part.toolCallId),
      name: String(part.toolName),
      arguments: typeof input === 'string' ? input : JSON.stringify(input ?? {}),
      ...(part.providerMetadata && Object.keys(part.providerMetadata).length
        ? { providerMetadata: part.providerMetadata }
        : {}),
    });
  }

  /** True once a tool call of the app's came in. */
  get callsTools(): boolean {
    return this.toolCalls.length > 0;
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

function merged(into: ProviderMetadata | undefined, from: ProviderMetadata): ProviderMetadata {
  const out: ProviderMetadata = { ...into };
  for (const [provider, values] of Object.entries(from))
    out[provider] = { ...out[provider], ...values };
  return out;
}

function reasoningPart(text: string, providerMetadata: ProviderMetadata | undefined): ContentPart {
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
