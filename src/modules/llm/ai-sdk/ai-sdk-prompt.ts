import type { ChatMessage } from '../../../common/messages/chat-message.interface.js';
import type { ContentPart } from '../../../common/messages/content-parts.js';
import type { ToolChoice, ToolSpec } from '../interfaces/llm.interface.js';
import { LlmUnsupportedContentError } from '../llm-errors.js';
import type { SpecificationVersion } from './ai-sdk-language-model.js';

type PromptPart = Record<string, unknown>;
type PromptMessage = { role: string; content: string | PromptPart[] };

/**
 * The conversation as an AI SDK prompt of the model's specification: system text, user text and
 * files, assistant text, reasoning and tool calls (with the provider metadata they came with), one
 * tool message per result. Tool-call arguments go back as the JSON object they were (`{}` where the
 * model wrote something else: providers take objects only). An assistant message with neither
 * content nor calls is left out (providers refuse empty messages).
 */
export function toModelPrompt(
  messages: readonly ChatMessage[],
  version: SpecificationVersion,
  provider: string,
): PromptMessage[] {
  const toolNames = new Map<string, string>();
  const prompt: PromptMessage[] = [];
  messages.forEach((message, index) => {
    const mapped = toPromptMessage(message, index);
    if (mapped) prompt.push(mapped);
  });
  return prompt;

  function toPromptMessage(message: ChatMessage, index: number): PromptMessage | undefined {
    const where = `messages[${index}]`;
    switch (message.role) {
      case 'system':
        return { role: 'system', content: textOf(message.content, provider, where) };
      case 'user':
        return { role: 'user', content: parts(message.content, version) };
      case 'assistant': {
        const content = parts(message.content, version);
        for (const call of message.toolCalls ?? []) {
          toolNames.set(call.id, call.name);
          content.push({
            type: 'tool-call',
            toolCallId: call.id,
            toolName: call.name,
            input: parseArguments(call.arguments),
            ...(call.providerMetadata ? { providerOptions: call.providerMetadata } : {}),
          });
        }
        return content.length ? { role: 'assistant', content } : undefined;
      }
      case 'tool': {
        const callId = message.toolCallId ?? '';
        return {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: callId,
              toolName: toolNames.get(callId) ?? message.name ?? 'unknown',
              output: { type: 'text', value: textOf(message.content, provider, where) },
            },
          ],
        };
      }
    }
  }
}

/** Tool specs as AI SDK function tools. */
export function toModelTools(tools: readonly ToolSpec[] | undefined): PromptPart[] | undefined {
  if (!tools?.length) return undefined;
  return tools.map((tool) => ({
    type: 'function',
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
  }));
}

/** A tool choice in the AI SDK's shape. */
export function toModelToolChoice(choice: ToolChoice | undefined): PromptPart | undefined {
  if (choice === undefined) return undefined;
  return typeof choice === 'string' ? { type: choice } : { type: 'tool', toolName: choice.name };
}

function parts(content: ChatMessage['content'], version: SpecificationVersion): PromptPart[] {
  if (content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return content.map((part) => toPromptPart(part, version));
}

function toPromptPart(part: ContentPart, version: SpecificationVersion): PromptPart {
  switch (part.type) {
    case 'text':
      return part.providerMetadata
        ? { type: 'text', text: part.text, providerOptions: part.providerMetadata }
        : { type: 'text', text: part.text };
    case 'reasoning':
      return {
        type: 'reasoning',
        text: part.text,
        ...(part.providerMetadata ? { providerOptions: part.providerMetadata } : {}),
      };
    case 'image':
    case 'file': {
      const mediaType = part.mediaType ?? 'image/*';
      const data = fileData(part, version);
      return {
        type: 'file',
        mediaType,
        data,
        ...(part.type === 'file' && part.filename ? { filename: part.filename } : {}),
      };
    }
  }
}

/** v2/v3 take base64 text or a URL; v4 tags which one it is. */
function fileData(part: { url?: string; data?: string }, version: SpecificationVersion): unknown {
  if (version === 'v4') {
    return part.url !== undefined
      ? { type: 'url', url: new URL(part.url) }
      : { type: 'data', data: part.data };
  }
  return part.url !== undefined ? new URL(part.url) : part.data;
}

function textOf(content: ChatMessage['content'], provider: string, where: string): string {
  if (content === null) return '';
  if (typeof content === 'string') return content;
  const other = content.find((part) => part.type !== 'text');
  if (other) {
    throw new LlmUnsupportedContentError(
      provider,
      `${where} carries a ${other.type} part, which this role cannot send`,
    );
  }
  return content.map((part) => (part as { text: string }).text).join('\n');
}

function parseArguments(text: string): unknown {
  try {
    const input = JSON.parse(text) as unknown;
    return typeof input === 'object' && input !== null && !Array.isArray(input) ? input : {};
  } catch {
    return {};
  }
}
