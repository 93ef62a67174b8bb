import { randomUUID } from 'node:crypto';
import type { ChatMessage, ToolCall } from '../../common/messages/chat-message.interface.js';
import {
  type ContentPart,
  compactContent,
  contentText,
  mediaPart,
  parseDataUrl,
} from '../../common/messages/content-parts.js';

/** A part of an AI SDK `UIMessage` (the shapes `useChat` renders; typed loosely). */
export interface UiMessagePart {
  type: string;
  text?: string;
  url?: string;
  mediaType?: string;
  filename?: string;
  toolCallId?: string;
  toolName?: string;
  state?: string;
  input?: unknown;
  output?: unknown;
  errorText?: string;
  providerMetadata?: Record<string, Record<string, unknown>>;
  callProviderMetadata?: Record<string, Record<string, unknown>>;
}

/** An AI SDK `UIMessage`, as `useChat` keeps and sends it. */
export interface UiMessage {
  id: string;
  role: 'system' | 'user' | 'assistant';
  metadata?: unknown;
  parts: UiMessagePart[];
}

/**
 * Stored messages as `UIMessage`s for `useChat` (`initialMessages`, `setMessages`): a user or system
 * message is one UI message; an assistant answer with its tool rounds is one UI message whose steps
 * start with `step-start`, its calls `tool-<name>` parts with their output (`output-available`), or
 * still `input-available` when no result was stored. Images and inline files become `data:` URLs.
 */
export function toUIMessages(messages: readonly ChatMessage[]): UiMessage[] {
  const ui: UiMessage[] = [];
  let assistant: UiMessage | undefined;
  for (const message of messages) {
    if (message.role === 'tool') {
      const call = [...(assistant?.parts ?? [])]
        .reverse()
        .find((part) => part.toolCallId === message.toolCallId && part.state === 'input-available');
      if (call) {
        call.state = 'output-available';
        call.output = parseJson(contentText(message.content));
      }
      continue;
    }
    if (message.role !== 'assistant') {
      assistant = undefined;
      ui.push(uiMessage(message, message.role, contentParts(message.content)));
      continue;
    }
    const parts: UiMessagePart[] = [{ type: 'step-start' }, ...contentParts(message.content)];
    for (const call of message.toolCalls ?? []) {
      parts.push({
        type: `tool-${call.name}`,
        toolCallId: call.id,
        state: 'input-available',
        input: parseJson(call.arguments),
        ...(call.providerMetadata ? { callProviderMetadata: call.providerMetadata } : {}),
      });
    }
    if (assistant) assistant.parts.push(...parts);
    else ui.push((assistant = uiMessage(message, 'assistant', parts)));
  }
  return ui;
}

/**
 * `UIMessage`s (what `useChat` sends, or an `onFinish`'s messages) as messages to store: text and
 * file parts of user and system messages; each step of an assistant message as an assistant
 * message (text, reasoning, files, the calls that have an outcome) followed by one tool message
 * per outcome (its output as JSON text, an error as `{"error": …}`). Calls without an outcome yet
 * are left out. The first message of a UI message keeps its id, the next ones get `<id>:1`, ….
 */
export function fromUIMessages(messages: readonly UiMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const ui of messages) {
    const ids = idsFor(ui.id);
    const meta =
      typeof ui.metadata === 'object' && ui.metadata !== null
        ? { metadata: ui.metadata as Record<string, unknown> }
        : {};
    if (ui.role !== 'assistant') {
      const content = fromParts(ui.parts);
      out.push({ id: ids(), role: ui.role, content: compactContent(content) ?? '', ...meta });
      continue;
    }
    let first = true;
    for (const step of steps(ui.parts)) {
      const done = step.filter(isToolPart).filter((part) => part.state?.startsWith('output-'));
      const content = compactContent(fromParts(step));
      if (content === null && done.length === 0) continue;
      const toolCalls: ToolCall[] = done.map((part) => ({
        id: String(part.toolCallId),
        name: toolNameOf(part),
        arguments: JSON.stringify(part.input ?? {}),
        ...(part.callProviderMetadata ? { providerMetadata: part.callProviderMetadata } : {}),
      }));
      out.push({
        id: ids(),
        role: 'assistant',
        content,
        ...(toolCalls.length ? { toolCalls } : {}),
        ...(first ? meta : {}),
      });
      first = false;
      for (const part of done) {
        out.push({
          id: ids(),
          role: 'tool',
          toolCallId: String(part.toolCallId),
          name: toolNameOf(part),
          content:
            part.state === 'output-error'
              ? JSON.stringify({ error: part.errorText ?? 'failed' })
              : typeof part.output === 'string'
                ? part.output
                : JSON.stringify(part.output ?? null),
        });
      }
    }
  }
  return out;
}

function uiMessage(
  message: ChatMessage,
  role: UiMessage['role'],
  parts: UiMessagePart[],
): UiMessage {
  return {
    id: message.id ?? randomUUID(),
    role,
    ...(message.metadata ? { metadata: message.metadata } : {}),
    parts,
  };
}

function contentParts(content: ChatMessage['content']): UiMessagePart[] {
  if (content === null || content === '') return [];
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part): UiMessagePart => {
    switch (part.type) {
      case 'text':
        return part.providerMetadata
          ? { type: 'text', text: part.text, providerMetadata: part.providerMetadata }
          : { type: 'text', text: part.text };
      case 'reasoning':
        return part.providerMetadata
          ? { type: 'reasoning', text: part.text, providerMetadata: part.providerMetadata }
          : { type: 'reasoning', text: part.text };
      case 'image':
      case 'file': {
        const mediaType = part.mediaType ?? 'image/*';
        return {
          type: 'file',
          mediaType,
          url: part.url ?? `data:${mediaType};base64,${part.data}`,
          ...(part.type === 'file' && part.filename ? { filename: part.filename } : {}),
        };
      }
    }
  });
}

function fromParts(parts: readonly UiMessagePart[]): ContentPart[] {
  const content: ContentPart[] = [];
  for (const part of parts) {
    if (part.type === 'text' && typeof part.text === 'string') {
      const last = content.at(-1);
      if (last?.type === 'text' && !last.providerMetadata && !part.providerMetadata)
        last.text += part.text;
      else
        content.push(
          part.providerMetadata
            ? { type: 'text', text: part.text, providerMetadata: part.providerMetadata }
            : { type: 'text', text: part.text },
        );
    } else if (part.type === 'reasoning' && typeof part.text === 'string') {
      content.push(
        part.providerMetadata
          ? { type: 'reasoning', text: part.text, providerMetadata: part.providerMetadata }
          : { type: 'reasoning', text: part.text },
      );
    } else if (part.type === 'file' && typeof part.url === 'string') {
      content.push(filePart(part));
    }
  }
  return content;
}

function filePart(part: UiMessagePart): ContentPart {
  const inline = parseDataUrl(part.url!);
  const mediaType = inline?.mediaType || part.mediaType || 'application/octet-stream';
  return mediaPart(inline ? { data: inline.data } : { url: part.url! }, mediaType, part.filename);
}

function steps(parts: readonly UiMessagePart[]): UiMessagePart[][] {
  const all: UiMessagePart[][] = [[]];
  for (const part of parts) {
    if (part.type === 'step-start') {
      if (all.at(-1)!.length) all.push([]);
    } else all.at(-1)!.push(part);
  }
  return all;
}

function isToolPart(part: UiMessagePart): boolean {
  return part.type === 'dynamic-tool' || part.type.startsWith('tool-');
}

function toolNameOf(part: UiMessagePart): string {
  return part.type === 'dynamic-tool' ? String(part.toolName) : part.type.slice('tool-'.length);
}

/**
 * The ids of the messages one UI message stands for: its own first. An id ending in `:<n>` (what the
 * agent and the middleware store: `<runId>:1`, `<runId>:2`, …) goes on counting from `n`, so a
 * stored turn read back gets its own ids again; any other id is followed by `<id>:1`, `<id>:2`, ….
 */
function idsFor(id: string): () => string {
  const numbered = /^(.*):(\d+)$/.exec(id);
  let next = 0;
  if (numbered) {
    const base = numbered[1]!;
    const first = Number(numbered[2]);
    return () => `${base}:${first + next++}`;
  }
  return () => (next++ === 0 ? id : `${id}:${next - 1}`);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
