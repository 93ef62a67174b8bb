import type { UIMessage } from 'ai';
import type { StoredMessage, StoredPart } from './types.js';

/** A stored message's content as UI parts: texts, and files as `data:` or http(s) URLs. */
function contentParts(content: StoredMessage['content']): UIMessage['parts'] {
  if (content === null || content === '') return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.flatMap((part: StoredPart): UIMessage['parts'] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text ?? '' }];
    if (part.type !== 'image' && part.type !== 'file') return [];
    const mediaType = part.mediaType ?? 'image/*';
    const url = part.url ?? `data:${mediaType};base64,${part.data ?? ''}`;
    return [
      { type: 'file', mediaType, url, ...(part.filename ? { filename: part.filename } : {}) },
    ];
  });
}

function textOf(content: StoredMessage['content']): string | null {
  if (typeof content !== 'object' || content === null) return content;
  return content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('');
}

function parsed(content: StoredMessage['content']): unknown {
  const text = textOf(content);
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Stored history as the chat shows it: each user message alone; each turn's assistant and tool
 * messages folded into one assistant message whose parts are its steps, texts and tool calls with
 * their results — the shape the stream builds, so a reload looks like the live page.
 */
export function storedToUiMessages(stored: StoredMessage[]): UIMessage[] {
  const messages: UIMessage[] = [];
  let assistant: UIMessage | undefined;
  const tools = new Map<string, { toolCallId: string; toolName: string; input: unknown }>();
  for (const message of stored) {
    if (message.role === 'user') {
      assistant = undefined;
      messages.push({
        id: message.id,
        role: 'user',
        parts: contentParts(message.content),
      });
    } else if (message.role === 'assistant') {
      if (!assistant) {
        assistant = { id: message.id, role: 'assistant', parts: [] };
        messages.push(assistant);
      }
      assistant.parts.push({ type: 'step-start' });
      assistant.parts.push(...contentParts(message.content));
      for (const call of message.toolCalls ?? []) {
        const toolCallId = `${message.id}:${call.id}`;
        tools.set(call.id, { toolCallId, toolName: call.name, input: parsed(call.arguments) });
      }
    } else if (message.role === 'tool' && assistant && message.toolCallId) {
      const call = tools.get(message.toolCallId);
      if (!call) continue;
      assistant.parts.push({
        type: 'dynamic-tool',
        toolCallId: call.toolCallId,
        toolName: call.toolName,
        state: 'output-available',
        input: call.input,
        output: parsed(message.content),
      });
    }
  }
  return messages;
}

/** A stored message's content as one line of text for the inspector (parts summarized). */
export function describeContent(content: StoredMessage['content']): string {
  if (typeof content !== 'object' || content === null) return content ?? '';
  return content
    .map((part) => {
      if (part.type === 'text') return part.text ?? '';
      if (part.type === 'reasoning') return `[reasoning: ${part.text ?? ''}]`;
      const size =
        part.data === undefined ? part.url : `${Math.round((part.data.length * 3) / 4 / 1024)} KB`;
      return `[${part.type} ${part.mediaType ?? ''} ${part.filename ?? size ?? ''}]`.replace(
        /\s+\]/,
        ']',
      );
    })
    .join(' ');
}
