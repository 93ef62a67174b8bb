import { useEffect, useRef, useState } from 'react';
import { CURRENT_STORAGE, ENTITY_STORAGE, getJson, seg } from './api.js';
import { ConversationList } from './conversation-list.js';
import { reportFailure } from './errors.js';
import { FormedMemories } from './formed-memories.js';
import { LongTermRecords } from './long-term-records.js';
import { RecallSearch } from './recall-search.js';
import { RunList } from './run-list.js';
import { ShortId } from './short-id.js';
import { describeContent } from './stored-to-ui.js';
import type { MessagesPage, RunRecord, WorkingMemoryEntry } from './types.js';

/** What the inspector shows of one conversation. */
export interface ConversationView {
  page: MessagesPage;
  runs: RunRecord[];
  runsCursor?: string;
  workingMemory: { sizeBytes: number; entries: WorkingMemoryEntry[] };
}

/**
 * `/inspector`: the tenant's conversations, newest first; a conversation's messages (ids,
 * positions, version), its runs (status, attempts, each step with whether a retry replayed it, the
 * long-term rows flushed or refused, error) and working memory; an entity's long-term records (on
 * open, by prefix), its formed memories (with their sources and history), and recalled by content. Everything through the API, with this tab's key.
 */
export function Inspector() {
  const [conversationId, setConversationId] = useState(
    () => localStorage.getItem(CURRENT_STORAGE) ?? '',
  );
  const [view, setView] = useState<ConversationView>();
  const [entityId, setEntityId] = useState(() => localStorage.getItem(ENTITY_STORAGE) ?? 'me');
  const [error, setError] = useState<string>();
  const [found, setFound] = useState<number>();

  // Each open is numbered: an answer that arrives after a later open's is dropped.
  const opens = useRef(0);

  /** Runs `load`, keeping what it shows only while no conversation was opened since. */
  const guarded = (ticket: number, load: (latest: () => boolean) => Promise<void>) => {
    const latest = () => ticket === opens.current;
    return load(latest).then(
      () => latest() && setError(undefined),
      (failure: unknown) => latest() && setError(reportFailure(failure)),
    );
  };

  const openConversation = (chosen = conversationId, at?: number, messageId?: string) =>
    guarded(++opens.current, async (latest) => {
      try {
        await loadConversation(chosen, latest, at, messageId);
      } catch (failure) {
        // Nothing shown, not the last conversation under the id that failed to open.
        if (latest()) setView(undefined);
        throw failure;
      }
    });

  /** Loads a conversation (its page, runs, working memory) into the view while it is the latest. */
  const loadConversation = async (
    chosen: string,
    latest: () => boolean,
    at?: number,
    messageId?: string,
  ) => {
    const id = seg(chosen.trim());
    if (!id) throw new Error('Enter a conversation id, or choose one from the list.');
    const [page, runs, workingMemory] = await Promise.all([
      // At a message: the page of 100 around it; else the newest 100.
      getJson<MessagesPage>(
        `/conversations/${id}/messages?${at === undefined ? 'last=100' : `before=${at + 50}&limit=100`}`,
      ),
      getJson<{ runs: RunRecord[]; cursor?: string }>(`/conversations/${id}/runs?limit=20`),
      getJson<ConversationView['workingMemory']>(`/conversations/${id}/working-memory`),
    ]);
    if (!latest()) return;
    // A message named by id (a formed memory's source) is found where the page holds it.
    const index = messageId ? page.messages.findIndex((m) => m.id === messageId) : -1;
    setFound(index >= 0 ? positionOf(page, index) : at);
    setView({ page, runs: runs.runs, runsCursor: runs.cursor, workingMemory });
  };

  /** The next runs of the conversation on screen, added below: its messages stay as they are. */
  const moreRuns = (shown: ConversationView) =>
    guarded(opens.current, async (latest) => {
      const id = seg(shown.page.conversationId);
      const runs = await getJson<{ runs: RunRecord[]; cursor?: string }>(
        `/conversations/${id}/runs?limit=20&cursor=${shown.runsCursor}`,
      );
      if (!latest()) return;
      setView(
        (now) => now && { ...now, runs: [...now.runs, ...runs.runs], runsCursor: runs.cursor },
      );
    });

  /** Opens a conversation at a message named by id (a formed memory's source). */
  const openAtMessage = (id: string, messageId: string) => {
    setConversationId(id);
    void openConversation(id, undefined, messageId);
  };

  // The conversation the chat showed last opens with the page: no Open press.
  useEffect(() => {
    if (conversationId.trim()) void openConversation();
    // Once, on open: later ids are opened by the user.
  }, []);

  return (
    <main className="inspector">
      <h1>Memory inspector</h1>
      {error && (
        <p className="error banner" data-testid="inspector-error" role="alert">
          {error}
        </p>
      )}
      <section className="inspector-conversations" aria-labelledby="conversations-heading">
        <h2 id="conversations-heading">Conversations</h2>
        <ConversationList
          current={view?.page.conversationId}
          onChoose={(id) => {
            setConversationId(id);
            void openConversation(id);
          }}
        />
      </section>
      <section className="inspector-conversation" aria-labelledby="conversation-heading">
        <h2 id="conversation-heading">Conversation</h2>
        <form
          className="fields"
          onSubmit={(event) => {
            event.preventDefault();
            void openConversation();
          }}
        >
          <label>
            Conversation id
            <input
              data-testid="inspect-conversation"
              value={conversationId}
              onChange={(event) => setConversationId(event.target.value)}
            />
          </label>
          <button data-testid="open-conversation" type="submit">
            Open
          </button>
        </form>
        {view && (
          <ConversationDetails view={view} found={found} onMoreRuns={() => void moreRuns(view)} />
        )}
      </section>
      <section className="inspector-memory" aria-labelledby="memory-heading">
        <h2 id="memory-heading">Long-term memory</h2>
        <LongTermRecords entityId={entityId} onEntityChange={setEntityId} onError={setError} />
        <FormedMemories
          entityId={entityId}
          conversationId={view?.page.conversationId}
          onError={setError}
          onOpenMessage={openAtMessage}
        />
        <RecallSearch
          entityId={entityId}
          onOpenMessage={(id, position) => {
            setConversationId(id);
            void openConversation(id, position);
          }}
          onOpenSource={openAtMessage}
        />
      </section>
    </main>
  );
}

/** A conversation's messages, runs and working memory, each a table or list of its own. */
function ConversationDetails({
  view,
  found,
  onMoreRuns,
}: {
  view: ConversationView;
  found?: number;
  onMoreRuns: () => void;
}) {
  const { page } = view;
  const entries = view.workingMemory.entries;
  return (
    <>
      <h3>Messages</h3>
      <p data-testid="version" className="meta">
        {page.messages.length === 0
          ? 'No messages yet (version 0).'
          : `Version ${page.version}: ${page.messages.length} messages${page.before ? `, from position ${page.before}` : ''}.`}
      </p>
      {page.messages.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Messages">
          <table className="message-rows" data-testid="inspector-messages">
            <thead>
              <tr>
                <th scope="col">Position</th>
                <th scope="col">Id</th>
                <th scope="col">Role</th>
                <th scope="col">Content</th>
              </tr>
            </thead>
            <tbody>
              {page.messages.map((message, index) => (
                <tr
                  key={message.id}
                  {...(positionOf(page, index) === found
                    ? {
                        className: 'found',
                        'data-testid': 'found-message',
                        ref: (row: HTMLTableRowElement | null) =>
                          row?.scrollIntoView({ block: 'center' }),
                      }
                    : {})}
                >
                  <td>{positionOf(page, index)}</td>
                  <td>
                    <ShortId id={message.id} />
                  </td>
                  <td>{message.role}</td>
                  <td className="content">
                    {describeContent(message.content)}
                    {message.toolCalls?.map((call) => (
                      <code key={call.id}>
                        {' '}
                        {call.name}({call.arguments})
                      </code>
                    ))}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h3>Runs, newest first</h3>
      <RunList runs={view.runs} more={view.runsCursor !== undefined} onMore={onMoreRuns} />
      <h3>Working memory</h3>
      <p className="meta">
        {entries.length === 0
          ? 'Empty.'
          : `${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, ${view.workingMemory.sizeBytes} bytes.`}
      </p>
      {entries.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Working memory">
          <table data-testid="working-memory">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Size</th>
                <th scope="col">Value</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => (
                <tr key={entry.key}>
                  <td>
                    <code>{entry.key}</code>
                  </td>
                  <td>{entry.sizeBytes} B</td>
                  <td>
                    <code>{JSON.stringify(entry.value)}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

/** The 1-based position of a page's `index`-th message: the page starts at its `before` (or 1). */
function positionOf(page: MessagesPage, index: number): number {
  return (page.before ?? 1) + index;
}
