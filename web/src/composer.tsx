import { StrokeIcon } from './stroke-icon.js';
import type { FileUIPart } from 'ai';
import { useEffect, useRef, useState } from 'react';
import { MAX_ATTACHED_CHARS, imageToFilePart } from './attachments.js';

/** The most lines the message field grows to before it scrolls. */
const MAX_LINES = 6;

/** Where a conversation's unsent text is kept in this tab (switching conversations keeps it). */
const draftKey = (conversationId: string) => `agent-memory:draft:${conversationId}`;

/**
 * Where the user writes: a multi-line field that grows to a few lines (Enter sends, Shift+Enter
 * starts a new line, Enter while an input method composes does not send), images to attach, and
 * Send — or Stop while a reply streams. Focused when it appears. The unsent text of each
 * conversation is kept in this tab's session storage, so switching away and back loses nothing.
 * `restore` puts a text back in an empty field (the message of a turn the user stopped).
 */
export function Composer({
  conversationId,
  busy,
  restore,
  onSend,
  onStop,
  onError,
}: {
  conversationId: string;
  busy: boolean;
  restore?: { text: string };
  onSend: (text: string, files: FileUIPart[]) => void;
  onStop: () => void;
  onError: (message?: string) => void;
}) {
  const [text, setDraft] = useState(() => sessionStorage.getItem(draftKey(conversationId)) ?? '');
  const setText = (value: string) => {
    setDraft(value);
    if (value) sessionStorage.setItem(draftKey(conversationId), value);
    else sessionStorage.removeItem(draftKey(conversationId));
  };
  const [attached, setAttached] = useState<FileUIPart[]>([]);
  const field = useRef<HTMLTextAreaElement>(null);

  useEffect(() => field.current?.focus(), []);
  useEffect(() => {
    if (restore?.text && !field.current?.value) setText(restore.text);
    // Each restore is a new object: the same text stopped twice comes back twice.
  }, [restore]);
  // Grows with its text, up to MAX_LINES lines.
  useEffect(() => {
    const element = field.current;
    if (!element) return;
    element.style.height = 'auto';
    const line = parseFloat(getComputedStyle(element).lineHeight) || 22;
    element.style.height = `${Math.min(element.scrollHeight + 2, line * MAX_LINES + 18)}px`;
  }, [text]);

  const submit = () => {
    if ((!text.trim() && attached.length === 0) || busy) return;
    onSend(text, attached);
    setText('');
    setAttached([]);
  };

  return (
    <form
      className="composer"
      aria-label="Write a message"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      {attached.length > 0 && (
        <ul className="attached" data-testid="attached" aria-label="Attached images">
          {attached.map((file, index) => (
            <li key={index}>
              <img src={file.url} alt={file.filename ?? 'attached image'} />
              <button
                type="button"
                className="secondary"
                aria-label={`Remove ${file.filename ?? 'image'}`}
                onClick={() => setAttached(attached.filter((_, i) => i !== index))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <label className="attach secondary" title="Attach images">
        <input
          data-testid="attach"
          className="sr-only"
          type="file"
          accept="image/*"
          multiple
          aria-label="Attach images"
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
                onError(undefined);
              })
              .catch((failure: Error) => onError(failure.message));
          }}
        />
        <StrokeIcon
          d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5"
          size={18}
        />
      </label>
      <label className="sr-only" htmlFor="composer">
        Message
      </label>
      <textarea
        id="composer"
        ref={field}
        data-testid="composer"
        rows={1}
        placeholder="Message"
        title="Enter sends; Shift+Enter starts a new line"
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key !== 'Enter' || event.shiftKey || event.nativeEvent.isComposing) return;
          // keyCode 229: a key an input method is handling (Safari ends composition this way).
          if (event.keyCode === 229) return;
          event.preventDefault();
          submit();
        }}
      />
      {busy ? (
        <button data-testid="stop" type="button" className="stop" onClick={onStop}>
          Stop
        </button>
      ) : (
        <button data-testid="send" type="submit">
          Send
        </button>
      )}
    </form>
  );
}
