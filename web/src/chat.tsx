import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type FileUIPart, type UIMessage } from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { authHeaders, getJson, seg } from './api.js';
import { MAX_ATTACHED_CHARS, imageToFilePart } from './attachments.js';
import { MessageView } from './message-view.js';
import { storedToUiMessages } from './stored-to-ui.js';
import type { MessagesPage, StoredMessage } from './types.js';

/** Messages loaded at first, and by each "Earlier messages". */
const PAGE = 200;

/**
 * One conversation: its stored history (loaded from the server, which owns it, the newest
 * {@link PAGE} messages first and more on demand), and new turns streamed through `useChat` from
 * `POST /conversations/:id/chat`, sending only the newest message.
 */
export function Chat({
  conversationId,
  entityId,
  onTurnFinished,
}: {
  conversationId: string;
  entityId: string;
  onTurnFinished?: () => void;
}) {
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
    onFinish: () => onTurnFinished?.(),
  });
  const [loadError, setLoadError] = useState<string>();
  const [text, setText] = useState('');
  const [attached, setAttached] = useState<FileUIPart[]>([]);
  // The stored messages loaded so far (oldest first) and the position of the next older page.
  const [stored, setStored] = useState<StoredMessage[]>([]);
  const [before, setBefore] = useState<number>();
  // How many of the chat's messages were folded from `stored` (the rest streamed on this page).
  const folded = useRef(0);

  const show = (history: StoredMessage[], next: number | undefined) => {
    const ui = storedToUiMessages(history);
    setMessages((current) => [...ui, ...current.slice(folded.current)]);
    folded.current = ui.length;
    setStored(history);
    setBefore(next);
  };

  useEffect(() => {
    folded.current = 0;
    getJson<MessagesPage>(`/conversations/${seg(conversationId)}/messages?last=${PAGE}`)
      .then((page) => {
        show(page.messages, page.before);
        setLoadError(undefined);
      })
      .catch((failure: Error) => setLoadError(failure.message));
    // `show` only sets state: the history loads again when the conversation changes, not on renders.
  }, [conversationId]);

  // An older page, folded with what is loaded as one history: no turn is cut at a page boundary.
  const loadEarlier = () =>
    getJson<MessagesPage>(
      `/conversations/${seg(conversationId)}/messages?before=${before}&limit=${PAGE}`,
    )
      .then((page) => {
        show([...page.messages, ...stored], page.before);
        setLoadError(undefined);
      })
      .catch((failure: Error) => setLoadError(failure.message));

  const busy = status === 'submitted' || status === 'streaming';
  return (
    <section className="chat">
      <div className="messages" data-testid="messages">
        {before !== undefined && (
          <button
            className="secondary earlier"
            data-testid="earlier"
            onClick={() => void loadEarlier()}
          >
            Earlier messages
          </button>
        )}
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
          if ((!text.trim() && attached.length === 0) || busy) return;
          void sendMessage(attached.length ? { text, files: attached } : { text });
          setText('');
          setAttached([]);
        }}
      >
        {attached.length > 0 && (
          <div className="attached" data-testid="attached">
            {attached.map((file, index) => (
              <button
                key={index}
                type="button"
                className="secondary"
                title={`Remove ${file.filename ?? 'image'}`}
                onClick={() => setAttached(attached.filter((_, i) => i !== index))}
              >
                <img src={file.url} alt={file.filename ?? 'attached image'} /> ×
              </button>
            ))}
          </div>
        )}
        <label className="attach secondary" title="Attach an image">
          <input
            data-testid="attach"
            type="file"
            accept="image/*"
            multiple
            hidden
            onChange={(event) => {
              const files = [...(event.target.files ?? [])];
              event.target.value = '';
              Promise.all(files.map(imageToFilePart))
                .then((parts) => {
                  const all = [...attached, ...parts];
                  const size = all.reduce((sum, part) => sum + part.url.length, 0);
                  if (size > MAX_ATTACHED_CHARS)
                    throw new Error('These images are too large together: attach fewer at once.');
                  setAttached(all);
                  setLoadError(undefined);
                })
                .catch((failure: Error) => setLoadError(failure.message));
            }}
          />
          <svg viewBox="0 0 24 24" width="18" height="18" aria-label="Attach an image" role="img">
            <path
              d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5"
              fill="none"
              stroke="currentColor"
              strokeWidth="1.8"
              strokeLinecap="round"
            />
          </svg>
        </label>
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
