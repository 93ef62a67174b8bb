import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage } from 'ai';
import { useEffect, useMemo, useState } from 'react';
import { authHeaders, getJson, seg } from './api.js';
import { MessageView } from './message-view.js';
import { storedToUiMessages } from './stored-to-ui.js';
import type { MessagesPage } from './types.js';

/**
 * One conversation: its stored history (loaded from the server, which owns it), and new turns
 * streamed through `useChat` from `POST /conversations/:id/chat`, sending only the newest message.
 */
export function Chat({ conversationId, entityId }: { conversationId: string; entityId: string }) {
  const transport = useMemo(
    () =>
      new DefaultChatTransport<UIMessage>({
        api: `/conversations/${seg(conversationId)}/chat`,
        headers: () => authHeaders(),
        prepareSendMessagesRequest: ({ messages }) => ({
          body: { message: messages.at(-1), ...(entityId ? { entityId } : {}) },
        }),
      }),
    [conversationId, entityId],
  );
  const { messages, sendMessage, setMessages, status, error } = useChat({
    id: conversationId,
    transport,
  });
  const [loadError, setLoadError] = useState<string>();
  const [text, setText] = useState('');

  useEffect(() => {
    getJson<MessagesPage>(`/conversations/${seg(conversationId)}/messages?last=200`)
      .then((page) => setMessages(storedToUiMessages(page.messages)))
      .catch((failure: Error) => setLoadError(failure.message));
  }, [conversationId, setMessages]);

  const busy = status === 'submitted' || status === 'streaming';
  return (
    <section className="chat">
      <div className="messages" data-testid="messages">
        {messages.map((message) => (
          <MessageView key={message.id} message={message} />
        ))}
        {busy && <div className="status">…</div>}
        {(error ?? loadError) && (
          <div className="error" data-testid="chat-error">
            {error?.message ?? loadError}
          </div>
        )}
      </div>
      <form
        className="composer"
        onSubmit={(event) => {
          event.preventDefault();
          if (!text.trim() || busy) return;
          void sendMessage({ text });
          setText('');
        }}
      >
        <input
          data-testid="composer"
          placeholder="Message"
          value={text}
          onChange={(event) => setText(event.target.value)}
        />
        <button data-testid="send" type="submit" disabled={busy}>
          Send
        </button>
      </form>
    </section>
  );
}
