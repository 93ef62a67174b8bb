import { useCallback, useEffect, useRef, useState } from 'react';
import { callApi, getJson, seg } from './api.js';
import { ConversationItem, conversationName } from './conversation-item.js';
import { isAuthFailure, reportFailure } from './errors.js';
import type { ConversationSummary, ConversationsPage } from './types.js';

/**
 * The tenant's conversations from `GET /conversations`, newest activity first, a page at a time
 * ("More" follows the cursor): each with its title, preview and last activity. `extra` is listed
 * first when the server does not know it yet (a new conversation before its first turn is stored).
 * `refresh` changes reload the first page. With `manage`, each can be renamed (`PATCH`) or deleted
 * (`DELETE`, after a confirmation) — a new one too, while its first reply runs: its name is kept
 * here and sent once the server lists it (its first turn stored); a delete stops the reply. The
 * `title`/`preview` fields are optional: an older server lists ids only.
 */
export function ConversationList({
  current,
  extra,
  refresh,
  manage = false,
  onChoose,
  onDeleted,
}: {
  current?: string;
  extra?: string;
  refresh?: unknown;
  manage?: boolean;
  onChoose: (conversationId: string) => void;
  onDeleted?: (conversationId: string) => void;
}) {
  const [items, setItems] = useState<ConversationSummary[]>();
  const [cursor, setCursor] = useState<string>();
  const [error, setError] = useState<string>();
  const [deleting, setDeleting] = useState<ConversationSummary>();
  // Names given to conversations the server does not list yet, sent once it does.
  const [pending, setPending] = useState<Record<string, string | null>>({});
  const pendingNow = useRef(pending);
  pendingNow.current = pending;
  const dialog = useRef<HTMLDialogElement>(null);
  // Each first-page load starts a generation; an answer of an older one is dropped, so a late
  // "More" never lands on a list that was reloaded meanwhile.
  const generation = useRef(0);

  const itemsNow = useRef(items);
  itemsNow.current = items;

  const load = useCallback(async (after?: string) => {
    const mine = after ? generation.current : ++generation.current;
    try {
      const page = await getJson<ConversationsPage>(
        `/conversations?limit=20${after ? `&cursor=${after}` : ''}`,
      );
      if (mine !== generation.current) return;
      setItems((known = []) =>
        after
          ? [
              ...known,
              ...page.conversations.filter(
                (c) => !known.some((k) => k.conversationId === c.conversationId),
              ),
            ]
          : page.conversations,
      );
      setCursor(page.cursor);
      setError(undefined);
      for (const listed of page.conversations)
        if (listed.conversationId in pendingNow.current) {
          const title = pendingNow.current[listed.conversationId]!;
          setPending(({ [listed.conversationId]: _sent, ...rest }) => rest);
          void patchTitle(listed.conversationId, title);
        }
    } catch (failure) {
      if (mine !== generation.current) return;
      // A missing key is said once, by the page (the chat, the inspector's banner), not here too.
      const said = reportFailure(failure);
      setError(isAuthFailure(failure) ? undefined : said);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load, refresh]);
  useEffect(() => {
    if (deleting) dialog.current?.showModal();
  }, [deleting]);

  const rename = async (id: string, title: string | null): Promise<boolean> => {
    if (itemsNow.current?.some((item) => item.conversationId === id)) return patchTitle(id, title);
    setPending((names) => ({ ...names, [id]: title }));
    return true;
  };

  const patchTitle = async (id: string, title: string | null): Promise<boolean> => {
    try {
      const renamed = await callApi<ConversationSummary>(`/conversations/${seg(id)}`, 'PATCH', {
        title,
      });
      setItems((known = []) =>
        known.map((item) =>
          item.conversationId === id
            ? { ...item, ...(renamed ?? {}), title: title ?? undefined }
            : item,
        ),
      );
      setError(undefined);
      return true;
    } catch (failure) {
      setError(reportFailure(failure));
      return false;
    }
  };

  const remove = async (item: ConversationSummary) => {
    try {
      await callApi(`/conversations/${seg(item.conversationId)}`, 'DELETE');
      setItems((known = []) => known.filter((k) => k.conversationId !== item.conversationId));
      setPending(({ [item.conversationId]: _gone, ...rest }) => rest);
      setError(undefined);
      onDeleted?.(item.conversationId);
    } catch (failure) {
      setError(reportFailure(failure));
    }
  };

  const listed = items ?? [];
  const shown: ConversationSummary[] =
    extra && !listed.some((item) => item.conversationId === extra)
      ? [{ conversationId: extra, ...(pending[extra] ? { title: pending[extra] } : {}) }, ...listed]
      : listed;
  return (
    <>
      <ul className="conversations" data-testid="conversations" aria-label="Conversations">
        {shown.map((item) => (
          <ConversationItem
            key={item.conversationId}
            item={item}
            current={item.conversationId === current}
            manage={manage}
            onChoose={() => onChoose(item.conversationId)}
            onRename={(title) => rename(item.conversationId, title)}
            onDelete={() => setDeleting(item)}
          />
        ))}
      </ul>
      {items?.length === 0 && (
        <p className="empty" data-testid="no-conversations">
          No conversations yet
          {shown.length > 0 && ': the new one above is kept once you send its first message'}
        </p>
      )}
      {cursor && (
        <button type="button" className="secondary more" onClick={() => void load(cursor)}>
          More
        </button>
      )}
      {error && (
        <p className="error" role="alert" data-testid="list-error">
          {error}
        </p>
      )}
      {deleting && (
        <dialog
          ref={dialog}
          className="confirm"
          aria-labelledby="delete-title"
          data-testid="delete-dialog"
          onClose={() => setDeleting(undefined)}
        >
          <h2 id="delete-title">Delete “{conversationName(deleting)}”?</h2>
          <p>Its messages, runs and working memory are deleted for good.</p>
          <form method="dialog" className="dialog-actions">
            <button type="submit" className="secondary" autoFocus>
              Cancel
            </button>
            <button
              type="button"
              className="danger"
              data-testid="confirm-delete"
              onClick={() => {
                dialog.current?.close();
                void remove(deleting);
              }}
            >
              Delete
            </button>
          </form>
        </dialog>
      )}
    </>
  );
}
