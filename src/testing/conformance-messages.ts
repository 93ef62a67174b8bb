import type { ChatMessage } from '../common/messages/chat-message.interface.js';

/** User messages with these contents (the store assigns their ids). */
export function texts(...values: string[]): ChatMessage[] {
  return values.map((content) => ({ role: 'user', content }));
}

/** User messages whose ids are these values (and so are their contents). */
export function ids(...values: string[]): ChatMessage[] {
  return values.map((id) => ({ id, role: 'user', content: id }));
}

/** The contents of messages, in order. */
export function contents(messages: ChatMessage[]): Array<ChatMessage['content']> {
  return messages.map((message) => message.content);
}
