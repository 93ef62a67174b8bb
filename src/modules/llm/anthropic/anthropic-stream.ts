import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { LlmResponse, TokenSink, Usage } from '../interfaces/llm.interface.js';
import { readServerSentEvents } from '../http/sse-reader.js';
import { LlmConnectionError, LlmResponseError } from '../llm-errors.js';
import { fromAnthropicUsage, normalizeStopReason, toolCallOf } from './anthropic.wire.js';

interface OpenBlock {
  type: string;
  start: Record<string, unknown>;
  json: string;
}

/**
 * Reads a streamed Messages API response (`message_start`, `content_block_*`, `message_delta`,
 * `message_stop`): text deltas go to `onToken`, `input_json_delta`s assemble each tool call's
 * arguments. A stream that ends before `message_stop` was cut: `LlmConnectionError`.
 */
export async function readAnthropicStream(
  body: ReadableStream<Uint8Array>,
  onToken: TokenSink,
  markStarted: () => void,
): Promise<LlmResponse> {
  let text: string | null = null;
  const blocks = new Map<number, OpenBlock>();
  const toolCalls: ToolCall[] = [];
  let usage: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
  let finishReason: string | undefined;
  for await (const { data } of readServerSentEvents(body)) {
    const event = parseEvent(data);
    switch (event.type) {
      case 'message_start':
        usage = fromAnthropicUsage(
          (event.message as { usage?: unknown } | undefined)?.usage,
          usage,
        );
        break;
      case 'content_block_start': {
        const start = (event.content_block ?? {}) as Record<string, unknown>;
        blocks.set(Number(event.index), { type: String(start.type), start, json: '' });
        break;
      }
      case 'content_block_delta': {
        const delta = (event.delta ?? {}) as Record<string, unknown>;
        const block = blocks.get(Number(event.index));
        if (delta.type === 'text_delta' && typeof delta.text === 'string') {
          text = (text ?? '') + delta.text;
          markStarted();
          onToken(delta.text);
        } else if (
          delta.type === 'input_json_delta' &&
          block &&
          typeof delta.partial_json === 'string'
        ) {
          block.json += delta.partial_json;
        }
        break;
      }
      case 'content_block_stop': {
        const block = blocks.get(Number(event.index));
        if (block?.type === 'tool_use') toolCalls.push(toolCallOf(block.start, block.json));
        break;
      }
      case 'message_delta':
        usage = fromAnthropicUsage(event.usage, usage);
        finishReason =
          normalizeStopReason(
            (event.delta as { stop_reason?: unknown } | undefined)?.stop_reason,
          ) ?? finishReason;
        break;
      case 'message_stop':
        return {
          message: { role: 'assistant', content: text, ...(toolCalls.length ? { toolCalls } : {}) },
          usage,
          finishReason,
        };
      case 'error':
        throw new LlmResponseError(
          'anthropic',
          undefined,
          `stream error: ${JSON.stringify(event.error).slice(0, 200)}`,
        );
    }
  }
  throw new LlmConnectionError('anthropic', new Error('stream ended before message_stop'));
}

function parseEvent(data: string): Record<string, unknown> & { type?: unknown } {
  try {
    const event = JSON.parse(data) as Record<string, unknown>;
    if (typeof event !== 'object' || event === null) throw new Error('not an object');
    return event;
  } catch {
    throw new LlmResponseError(
      'anthropic',
      undefined,
      `malformed stream event: ${data.slice(0, 200)}`,
    );
  }
}
