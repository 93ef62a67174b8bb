import type { ToolCall } from '../../../common/messages/chat-message.interface.js';
import type { LlmResponse, TokenSink, Usage } from '../interfaces/llm.interface.js';
import { readServerSentEvents } from '../http/sse-reader.js';
import { LlmConnectionError, LlmResponseError } from '../llm-errors.js';
import { fromOpenAiUsage } from './openai.wire.js';

interface PartialToolCall {
  id?: string;
  name: string;
  arguments: string;
}

/**
 * Reads a streamed chat completion: text deltas go to `onToken` as they arrive (the first one calls
 * `markStarted`), tool-call deltas are assembled by index, and the final usage chunk is read. A
 * stream that ends without `[DONE]` was cut: `LlmConnectionError`.
 */
export async function readOpenAiStream(
  body: ReadableStream<Uint8Array>,
  onToken: TokenSink,
  markStarted: () => void,
): Promise<LlmResponse> {
  let content = '';
  let sawContent = false;
  const calls: PartialToolCall[] = [];
  let usage: Usage | undefined;
  let finishReason: string | undefined;
  for await (const event of readServerSentEvents(body)) {
    if (event.data === '[DONE]') {
      return assemble(sawContent ? content : null, calls, usage, finishReason);
    }
    const chunk = parseChunk(event.data);
    if (chunk.usage) usage = fromOpenAiUsage(chunk.usage);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content.length > 0) {
      sawContent = true;
      content += delta.content;
      markStarted();
      onToken(delta.content);
    }
    for (const part of delta.tool_calls ?? []) {
      const index = typeof part.index === 'number' ? part.index : calls.length;
      const call = (calls[index] ??= { name: '', arguments: '' });
      if (typeof part.id === 'string') call.id = part.id;
      if (typeof part.function?.name === 'string') call.name += part.function.name;
      if (typeof part.function?.arguments === 'string') call.arguments += part.function.arguments;
    }
  }
  throw new LlmConnectionError('openai', new Error('stream ended before [DONE]'));
}

interface StreamChunk {
  usage?: unknown;
  choices?: Array<{
    finish_reason?: unknown;
    delta?: {
      content?: unknown;
      tool_calls?: Array<{
        index?: unknown;
        id?: unknown;
        function?: { name?: unknown; arguments?: unknown };
      }>;
    };
  }>;
}

function parseChunk(data: string): StreamChunk {
  try {
    const chunk = JSON.parse(data) as StreamChunk;
    if (typeof chunk !== 'object' || chunk === null) throw new Error('not an object');
    return chunk;
  } catch {
    throw new LlmResponseError(
      'openai',
      undefined,
      `malformed stream chunk: ${data.slice(0, 200)}`,
    );
  }
}

function assemble(
  content: string | null,
  calls: PartialToolCall[],
  usage: Usage | undefined,
  finishReason?: string,
): LlmResponse {
  const toolCalls: ToolCall[] = calls.map((call, index) => {
    if (!call.id || !call.name) {
      throw new LlmResponseError(
        'openai',
        undefined,
        `streamed tool call ${index} has no id or name`,
      );
    }
    return { id: call.id, name: call.name, arguments: call.arguments || '{}' };
  });
  return {
    message: { role: 'assistant', content, ...(toolCalls.length > 0 ? { toolCalls } : {}) },
    usage: usage ?? { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
    finishReason,
  };
}
