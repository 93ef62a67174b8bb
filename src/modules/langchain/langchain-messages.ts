import {
  AIMessage,
  type BaseMessage,
  HumanMessage,
  type StoredMessage,
  SystemMessage,
  ToolMessage,
  mapChatMessagesToStoredMessages,
  mapStoredMessageToChatMessage,
} from '@langchain/core/messages';
import type {
  ChatMessage,
  ChatRole,
  StoredChatMessage,
} from '../../common/messages/chat-message.interface.js';
import { InvalidMessageError } from '../../common/messages/invalid-message.error.js';
import { langchainContent, nativeContent } from './native-content.js';

/** The metadata key under which a message keeps its exact LangChain form. */
export const LANGCHAIN_METADATA_KEY = 'langchain';

/** LangChain message types, and the roles a generic `ChatMessage` may carry, as stored roles. */
const ROLES: Record<string, ChatRole> = {
  human: 'user',
  user: 'user',
  ai: 'assistant',
  assistant: 'assistant',
  model: 'assistant',
  system: 'system',
  developer: 'system',
  tool: 'tool',
  function: 'tool',
};

/**
 * A LangChain message as the package stores it: its native form (role, content, tool calls, tool
 * call id, name — what the package's agent, HTTP API and inspector read), with the exact LangChain
 * form (`toDict()`) in `metadata.langchain`, its content left out when the native content is the
 * same string. The LangChain id becomes the message id, so adding a message twice stores it once.
 */
export function toChatMessage(message: BaseMessage): ChatMessage {
  const [stored] = mapChatMessagesToStoredMessages([message]) as [StoredMessage];
  const type = message.getType();
  const role = Object.hasOwn(ROLES, type === 'generic' ? String(stored.data.role) : type)
    ? ROLES[type === 'generic' ? String(stored.data.role) : type]
    : undefined;
  if (role === undefined)
    throw new InvalidMessageError(
      'message',
      `is a LangChain "${type}" message, which a conversation cannot hold`,
    );
  const native = nativeContent(role, message.content);
  const toolCalls = 'tool_calls' in message ? ((message as AIMessage).tool_calls ?? []) : [];
  const data: Record<string, unknown> = { ...stored.data };
  if (native.exact) delete data['content'];
  return {
    ...(message.id ? { id: message.id } : {}),
    role,
    content:
      role === 'assistant' && toolCalls.length > 0 && native.content === '' ? null : native.content,
    ...(toolCalls.length > 0
      ? {
          toolCalls: toolCalls.map((call, index) => ({
            id: call.id || `call_${index}`,
            name: call.name,
            arguments: JSON.stringify(call.args ?? {}),
          })),
        }
      : {}),
    // A FunctionMessage answers a function call by name (the older OpenAI protocol): its name
    // stands in for the call id the native form requires.
    ...(role === 'tool'
      ? { toolCallId: (message as ToolMessage).tool_call_id || message.name || 'function' }
      : {}),
    ...(message.name ? { name: message.name } : {}),
    metadata: { [LANGCHAIN_METADATA_KEY]: { type: stored.type, data } },
  };
}

/**
 * The LangChain message of a stored message: its exact LangChain form when it has one, otherwise
 * one made from its native form (for messages the package's own agent or HTTP API wrote).
 */
export function toLangchainMessage(message: StoredChatMessage): BaseMessage {
  const copy = message.metadata?.[LANGCHAIN_METADATA_KEY] as StoredMessage | undefined;
  if (copy && typeof copy === 'object' && typeof copy.type === 'string') {
    const data: Record<string, unknown> = { ...copy.data };
    if (!('content' in data))
      data['content'] = typeof message.content === 'string' ? message.content : '';
    // A message added without an id has the one the store gave it.
    data['id'] ??= message.id;
    return mapStoredMessageToChatMessage({ type: copy.type, data } as unknown as StoredMessage);
  }
  const fields = { id: message.id, ...(message.name ? { name: message.name } : {}) };
  const content = langchainContent(message.content) as string;
  switch (message.role) {
    case 'user':
      return new HumanMessage({ ...fields, content });
    case 'system':
      return new SystemMessage({ ...fields, content });
    case 'tool':
      return new ToolMessage({ ...fields, content, tool_call_id: message.toolCallId ?? '' });
    case 'assistant':
      return new AIMessage({
        ...fields,
        content,
        tool_calls: (message.toolCalls ?? []).map((call) => ({
          id: call.id,
          name: call.name,
          args: parseArguments(call.arguments),
          type: 'tool_call' as const,
        })),
      });
  }
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : { input: parsed };
  } catch {
    return { input: text };
  }
}
