import { useCallback, useEffect, useRef, useState } from 'react';
import { getJson } from './api.js';
import type { ConversationsPage } from './types.js';

/**
 * The tenant's conversations from `GET /conversations`, newest activity first, a page at a time
 * ("More" follows the cursor). `extra` is listed first when the server does not know it yet (a new
 * conversation before its first turn). `refresh` changes reload the first page.
 */
export function ConversationList({
  current,
  extra,
  refresh,
  onChoose,
}: {
  current?: string;
  extra?: string;
  refresh?: unknown;
  onChoose: (conversationId: string) => void;
}) {
  const [ids, setIds] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string>();
  const [error, setError] = useState<string>();
  // Each first-page load starts a generation; an answer of an older one is dropped, so a late
  // "More" never lands on a list that was reloaded meanwhile.
  const generation = useRef(0);

  const load = useCallback(async (after?: string) => {
    const mine = after ? generation.current : ++generation.current;
    try {
      const page = await getJson<ConversationsPage>(
        `/conversations?limit=20${after ? `&cursor=${after}` : ''}`,
      );
      if (mine !== generation.current) return;
      const listed = page.conversations.map((c) => c.conversationId);
      setIds((known) =>
        after ? [...known, ...listed.filter((id) => !known.includes(id))] : listed,
      );
      setCursor(page.cursor);
      setError(undefined);
    } catch (failure) {
      if (mine === generation.current) setError((failure as Error).message);
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load, refresh]);

  const shown = extra && !ids.includes(extra) ? [extra, ...ids] : ids;
  return (
    <>
      <ul data-testid="conversations">
        {shown.map((id) => (
          <li key={id}>
            <button className={id === current ? 'current' : ''} onClick={() => onChoose(id)}>
              {id}
            </button>
          </li>
        ))}
      </ul>
      {cursor && (
        <button className="secondary" onClick={() => void load(cursor)}>
          More
        </button>
      )}
      {error && <div className="error">{error}</div>}
    </>
  );
}
