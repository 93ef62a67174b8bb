import type { UIMessage } from 'ai';
import type { StoredMessage } from './types.js';

function parsed(text: string | null): unknown {
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
        parts: [{ type: 'text', text: message.content ?? '' }],
      });
    } else if (message.role === 'assistant') {
      if (!assistant) {
        assistant = { id: message.id, role: 'assistant', parts: [] };
        messages.push(assistant);
      }
      assistant.parts.push({ type: 'step-start' });
      if (message.content) assistant.parts.push({ type: 'text', text: message.content });
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
