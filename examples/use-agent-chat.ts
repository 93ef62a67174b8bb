// examples/use-agent-chat.ts
import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport } from 'ai';

/** A React hook for the chat route: the server owns the history, so only the newest message goes. */
export function useAgentChat(conversationId: string, key: string, entityId?: string) {
  const transport = new DefaultChatTransport({
    api: `/conversations/${conversationId}/chat`,
    headers: () => ({ Authorization: `Bearer ${key}` }),
    prepareSendMessagesRequest: ({ messages }) => ({
      body: { message: messages.at(-1), ...(entityId ? { entityId } : {}) },
    }),
  });
  return useChat({ id: conversationId, transport });
}
