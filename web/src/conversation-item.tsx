import { StrokeIcon } from './stroke-icon.js';
import { useRef, useState } from 'react';
import { relativeTime, shortId } from './relative-time.js';
import type { ConversationSummary } from './types.js';

/** What a conversation is called: its title, else "New conversation" (not on the server yet) or its id. */
export function conversationName(item: ConversationSummary): string {
  if (item.title) return item.title;
  return item.lastActiveAt === undefined ? 'New conversation' : shortId(item.conversationId, 16);
}

/**
 * One conversation of the list: its name, a one-line preview and when it was last active (the full
 * time in the title); with `manage`, Rename (inline: Enter saves, Escape cancels) and Delete.
 */
export function ConversationItem({
  item,
  current,
  manage,
  onChoose,
  onRename,
  onDelete,
}: {
  item: ConversationSummary;
  current: boolean;
  manage: boolean;
  onChoose: () => void;
  /** Resolves whether the title was saved (a failure is said by the list; the edit stays open). */
  onRename: (title: string | null) => Promise<boolean>;
  onDelete: () => void;
}) {
  const [editing, setEditing] = useState<string>();
  const at = item.lastActiveAt;

  const saving = useRef(false);
  const save = (text: string) => {
    if (saving.current) return;
    saving.current = true;
    void onRename(text.trim() || null).then((saved) => {
      saving.current = false;
      if (saved) setEditing(undefined);
    });
  };

  if (editing !== undefined)
    return (
      <li className="conversation editing" data-conversation-id={item.conversationId}>
        <input
          aria-label="Conversation title"
          data-testid="rename-input"
          autoFocus
          value={editing}
          maxLength={200}
          onChange={(event) => setEditing(event.target.value)}
          // Leaving the field saves a changed title (what was typed is never dropped unasked).
          onBlur={() => {
            if (editing.trim() === (item.title ?? '')) setEditing(undefined);
            else save(editing);
          }}
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              // Cancels the rename only: the drawer holding the list stays open.
              event.preventDefault();
              event.stopPropagation();
              setEditing(undefined);
            } else if (event.key === 'Enter') {
              event.preventDefault();
              save(editing);
            }
          }}
        />
      </li>
    );
  return (
    <li
      className={`conversation${current ? ' current' : ''}`}
      data-conversation-id={item.conversationId}
    >
      <button
        type="button"
        className="choose"
        aria-current={current ? 'true' : undefined}
        title={item.conversationId}
        onClick={onChoose}
      >
        <span className="name">{conversationName(item)}</span>
        {item.preview && <span className="preview">{item.preview}</span>}
        {at !== undefined && (
          <time dateTime={new Date(at).toISOString()} title={new Date(at).toLocaleString()}>
            {relativeTime(at)}
          </time>
        )}
      </button>
      {manage && (
        <span className="item-actions">
          <button
            type="button"
            className="icon"
            aria-label="Rename"
            title="Rename"
            data-testid="rename"
            onClick={() => setEditing(item.title ?? '')}
          >
            <StrokeIcon d="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4" />
          </button>
          <button
            type="button"
            className="icon"
            aria-label="Delete"
            title="Delete"
            data-testid="delete"
            onClick={onDelete}
          >
            <StrokeIcon d="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13" />
          </button>
        </span>
      )}
    </li>
  );
}
