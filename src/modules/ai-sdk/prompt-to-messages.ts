import { InvalidMessageError } from '../../common/messages/invalid-message.error.js';
import type { ProviderMetadata } from '../../common/messages/provider-metadata.js';
import type { ChatMessage, ToolCall } from '../../common/messages/chat-message.interface.js';
import {
  type ContentPart,
  compactContent,
  mediaPart,
} from '../../common/messages/content-parts.js';

type PromptPart = {
  type: string;
  text?: string;
  data?: unknown;
  mediaType?: string;
  filename?: string;
  toolCallId?: string;
  toolName?: string;
  input?: unknown;
  providerExecuted?: boolean;
  output?: { type: string; value?: unknown; reason?: string };
  providerOptions?: Record<string, Record<string, unknown>>;
};
/** A message of an AI SDK prompt (spec v2, v3 or v4), read loosely. */
export type PromptMessage = { role: string; content: string | PromptPart[] };

/**
 * An AI SDK prompt as the package's messages, the inverse of the adapter's mapping: user text and
 * files (an `image/*` file becomes an image part; bytes become base64), assistant text, reasoning
 * and tool calls, one tool message per tool result (a JSON output as its JSON text).
 */
export function promptToMessages(prompt: readonly PromptMessage[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const message of prompt) {
    if (typeof message.content === 'string') {
      messages.push({ role: message.role as ChatMessage['role'], content: message.content });
      continue;
    }
    if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue;
        messages.push({
          role: 'tool',
          content: toolOutputText(part.output),
          toolCallId: String(part.toolCallId),
          name: String(part.toolName),
        });
      }
      continue;
    }
    const parts: ContentPart[] = [];
    const toolCalls: ToolCall[] = [];
    for (const part of message.content) {
      if (part.type === 'tool-call') {
        // A call the provider ran itself has no result of the app's to pair with: not stored.
        if (part.providerExecuted === true) continue;
        toolCalls.push({
          id: String(part.toolCallId),
          name: String(part.toolName),
          arguments: typeof part.input === 'string' ? part.input : JSON.stringify(part.input ?? {}),
          ...metadataOf(part),
        });
      } else {
        const converted = toContentPart(part);
        if (converted) parts.push(converted);
      }
    }
    messages.push({
      role: message.role as ChatMessage['role'],
      content: compactContent(parts),
      ...(toolCalls.length ? { toolCalls } : {}),
    });
  }
  return messages;
}

function toContentPart(part: PromptPart): ContentPart | undefined {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text ?? '', ...metadataOf(part) };
    case 'reasoning':
      return { type: 'reasoning', text: part.text ?? '', ...metadataOf(part) };
    case 'file':
    case 'image': {
      // AI SDK 7 names a file of unknown subtype by its top-level type alone (`image`, `audio`).
      const given = part.mediaType ?? 'image';
      const mediaType = given.includes('/') ? given : `${given}/*`;
      const source = fileSource(part.data ?? (part as { image?: unknown }).image);
      return mediaPart(source, mediaType, part.filename);
    }
    default:
      return undefined;
  }
}

/**
 * v2/v3: base64 text, bytes or a URL; v4: `{ type: 'data' | 'url' | 'text' | 'reference', … }`.
 * A provider's file reference cannot be stored (it names a file only that provider holds).
 */
function fileSource(data: unknown): { url: string } | { data: string } {
  if (data instanceof URL) return { url: data.href };
  if (data instanceof Uint8Array) return { data: Buffer.from(data).toString('base64') };
  if (typeof data === 'object' && data !== null) {
    const tagged = data as { type?: string; url?: URL | string; data?: unknown; text?: unknown };
    if (tagged.type === 'url') return { url: String(tagged.url) };
    if (tagged.type === 'data') return fileSource(tagged.data);
    if (tagged.type === 'text')
      return { data: Buffer.from(String(tagged.text)).toString('base64') };
    throw new InvalidMessageError(
      'messages',
      `a file given as ${JSON.stringify(tagged.type)} cannot be stored: give its data or a URL`,
    );
  }
  const text = String(data);
  return /^https?:\/\//.test(text) ? { url: text } : { data: text };
}

function toolOutputText(output: PromptPart['output']): string {
  if (!output) return '';
  switch (output.type) {
    case 'text':
    case 'error-text':
      return String(output.value ?? '');
    case 'execution-denied':
      return JSON.stringify({ error: output.reason ?? 'execution denied' });
    default:
      return JSON.stringify(output.value ?? null);
  }
}

/** A prompt part's `providerOptions`, kept as the stored part's `providerMetadata`. */
function metadataOf(part: PromptPart): { providerMetadata?: ProviderMetadata } {
  return part.providerOptions && Object.keys(part.providerOptions).length
    ? { providerMetadata: part.providerOptions }
    : {};
}
