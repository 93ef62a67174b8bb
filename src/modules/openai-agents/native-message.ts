import type { AgentInputItem } from '@openai/agents';
import type { ChatMessage } from '../../common/messages/chat-message.interface.js';
import {
  type ContentPart,
  compactContent,
  contentText,
  parseDataUrl,
} from '../../common/messages/content-parts.js';
import { validateMessages } from '../../common/messages/message-validation.js';

type Loose = Record<string, unknown>;

/**
 * The library's own reading of an SDK item (without id or metadata), so that its agent, inspector
 * and HTTP API can read a conversation the SDK wrote: user, system and assistant text; images a URL
 * or data URL points at; a `function_call` as an assistant tool call; a `function_call_result` as a
 * tool message (its text, or its output as JSON); `reasoning` as reasoning parts. Items with no
 * counterpart (hosted, computer, shell and patch calls, compaction, unknown items) read as an
 * assistant message without content, which the library's prompt builder leaves out. The exact
 * item is kept beside it, so nothing here needs to be lossless.
 */
export function toNativeMessage(item: AgentInputItem): ChatMessage {
  const native = projection(item as unknown as Loose);
  try {
    validateMessages([native]);
    return native;
  } catch {
    // What a store would refuse (an image URL that is not http, bad base64, a call without an
    // id…): keep the text alone, as a message that needs no pairing.
    const role = native.role === 'tool' ? 'assistant' : native.role;
    return { role, content: clean(contentText(native.content)) || null };
  }
}

function projection(item: Loose): ChatMessage {
  switch (item.type ?? 'message') {
    case 'message':
      return messageProjection(item);
    case 'function_call':
      return {
        role: 'assistant',
        content: null,
        toolCalls: [
          {
            id: clean(text(item.callId)),
            name: clean(text(item.name)),
            arguments: clean(text(item.arguments)),
          },
        ],
      };
    case 'function_call_result':
      return {
        role: 'tool',
        toolCallId: clean(text(item.callId)),
        name: clean(text(item.name)),
        content: outputText(item.output),
      };
    case 'reasoning': {
      const raw = Array.isArray(item.rawContent) ? item.rawContent : item.content;
      const parts = (Array.isArray(raw) ? (raw as Loose[]) : [])
        .filter((part) => typeof part.text === 'string')
        .map((part): ContentPart => ({ type: 'reasoning', text: clean(part.text as string) }));
      return { role: 'assistant', content: parts.length ? parts : null };
    }
    default:
      return { role: 'assistant', content: null };
  }
}

function messageProjection(item: Loose): ChatMessage {
  const role = item.role;
  if (role === 'system') return { role: 'system', content: clean(text(item.content)) };
  const content = item.content;
  if (typeof content === 'string')
    return { role: role === 'user' ? 'user' : 'assistant', content: clean(content) };
  const parts = (Array.isArray(content) ? (content as Loose[]) : []).flatMap(partProjection);
  return { role: role === 'user' ? 'user' : 'assistant', content: compactContent(parts) };
}

function partProjection(part: Loose): ContentPart[] {
  switch (part.type) {
    case 'input_text':
    case 'output_text':
      return [{ type: 'text', text: clean(text(part.text)) }];
    case 'refusal':
      return [{ type: 'text', text: clean(text(part.refusal)) }];
    case 'audio':
      return typeof part.transcript === 'string'
        ? [{ type: 'text', text: clean(part.transcript) }]
        : [];
    case 'input_image':
    case 'image':
      return typeof part.image === 'string' ? imagePart(part.image) : [];
    default:
      return [];
  }
}

function imagePart(url: string): ContentPart[] {
  const inline = parseDataUrl(url);
  if (inline) return [{ type: 'image', data: inline.data, mediaType: inline.mediaType }];
  return /^https?:\/\//i.test(url) ? [{ type: 'image', url }] : [];
}

/** A tool output as text: the string itself, its text parts, or else the output as JSON. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return clean(output);
  const parts = Array.isArray(output) ? (output as Loose[]) : [output as Loose];
  const texts = parts.filter(
    (part) =>
      (part?.type === 'text' || part?.type === 'input_text') && typeof part.text === 'string',
  );
  if (texts.length === parts.length) return clean(texts.map((part) => part.text).join('\n'));
  return clean(
    JSON.stringify(output, (_key, value: unknown) =>
      value instanceof Uint8Array ? '[bytes]' : value,
    ) ?? '',
  );
}

/**
 * SDK items for a message the SDK did not write (one the library's agent or an app stored): its
 * text, reasoning, tool calls and tool result. Images and files are left out (their text is kept).
 */
export function itemsOfNativeMessage(message: ChatMessage): AgentInputItem[] {
  const body = contentText(message.content);
  switch (message.role) {
    case 'system':
      return [{ role: 'system', content: body }];
    case 'user':
      return [{ role: 'user', content: body }];
    case 'tool':
      return [
        {
          type: 'function_call_result',
          callId: message.toolCallId ?? '',
          name: message.name ?? '',
          status: 'completed',
          output: body,
        },
      ];
    case 'assistant': {
      const items: AgentInputItem[] = [];
      const reasoning = Array.isArray(message.content)
        ? message.content.filter((part) => part.type === 'reasoning')
        : [];
      if (reasoning.length)
        items.push({
          type: 'reasoning',
          content: reasoning.map((part) => ({ type: 'input_text', text: part.text })),
        });
      if (body)
        items.push({
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: body }],
        });
      for (const call of message.toolCalls ?? [])
        items.push({
          type: 'function_call',
          callId: call.id,
          name: call.name,
          arguments: call.arguments,
          status: 'completed',
        });
      return items;
    }
  }
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** Text a store takes: U+0000 (which PostgreSQL cannot hold) becomes U+FFFD. */
function clean(value: string): string {
  return value.replaceAll('\u0000', '\uFFFD');
}
