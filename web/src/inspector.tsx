import { useState } from 'react';
import { getJson, seg } from './api.js';
import { ConversationList } from './conversation-list.js';
import { RecallSearch } from './recall-search.js';
import { RunStepsView } from './run-steps-view.js';
import type { MemoryRecord, MessagesPage, RunRecord, WorkingMemoryEntry } from './types.js';
import { describeContent } from './stored-to-ui.js';

/** What the inspector shows of one conversation. */
interface ConversationView {
  page: MessagesPage;
  runs: RunRecord[];
  runsCursor?: string;
  workingMemory: { sizeBytes: number; entries: WorkingMemoryEntry[] };
}

const time = (epochMs: number) => new Date(epochMs).toLocaleString();

/**
 * `/inspector`: the tenant's conversations, newest first; a conversation's messages (ids,
 * positions, version), its runs (status, attempts, each step with whether a retry replayed it, the
 * long-term rows flushed or refused, error) and working memory; an entity's long-term records by
 * prefix, and recalled by content. Everything through the API, with this browser's key and tenant.
 */
export function Inspector() {
  const [conversationId, setConversationId] = useState(
    () => localStorage.getItem('agent-memory:current') ?? '',
  );
  const [openRuns, setOpenRuns] = useState<ReadonlySet<string>>(new Set());
  const [view, setView] = useState<ConversationView>();
  const [entityId, setEntityId] = useState(
    () => localStorage.getItem('agent-memory:entity') ?? 'me',
  );
  const [prefix, setPrefix] = useState('');
  const [records, setRecords] = useState<MemoryRecord[]>();
  const [error, setError] = useState<string>();

  const guard = (work: Promise<void>) =>
    work.then(() => setError(undefined)).catch((failure: Error) => setError(failure.message));

  const [found, setFound] = useState<number>();

  const openConversation = (cursor?: string, chosen = conversationId, at?: number) =>
    guard(
      (async () => {
        const id = seg(chosen);
        setFound(at);
        const [page, runs, workingMemory] = await Promise.all([
          // At a message: the page of 100 around it; else the newest 100.
          getJson<MessagesPage>(
            `/conversations/${id}/messages?${at === undefined ? 'last=100' : `before=${at + 50}&limit=100`}`,
          ),
          getJson<{ runs: RunRecord[]; cursor?: string }>(
            `/conversations/${id}/runs?limit=20${cursor ? `&cursor=${cursor}` : ''}`,
          ),
          getJson<ConversationView['workingMemory']>(`/conversations/${id}/working-memory`),
        ]);
        setView({
          page,
          runs: cursor && view ? [...view.runs, ...runs.runs] : runs.runs,
          runsCursor: runs.cursor,
          workingMemory,
        });
      })(),
    );

  const searchRecords = () =>
    guard(
      getJson<{ records: MemoryRecord[] }>(
        `/entities/${seg(entityId)}/memories?prefix=${seg(prefix)}&limit=100`,
      ).then((answer) => setRecords(answer.records)),
    );

  return (
    <main className="inspector">
      {error && (
        <div className="error" data-testid="inspector-error">
          {error}
        </div>
      )}
      <aside className="inspector-conversations">
        <h2>Conversations</h2>
        <ConversationList
          current={view?.page.conversationId}
          onChoose={(id) => {
            setConversationId(id);
            void openConversation(undefined, id);
          }}
        />
      </aside>
      <section>
        <h2>Conversation</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void openConversation();
          }}
        >
          <input
            data-testid="inspect-conversation"
            value={conversationId}
            onChange={(event) => setConversationId(event.target.value)}
          />
          <button data-testid="open-conversation" type="submit">
            Open
          </button>
        </form>
        {view && (
          <>
            <h3 data-testid="version">
              Messages (version {view.page.version}
              {view.page.before ? `, showing from position ${view.page.before}` : ''})
            </h3>
            <table data-testid="inspector-messages">
              <tbody>
                {view.page.messages.map((message, index) => (
                  <tr
                    key={message.id}
                    {...(positionOf(view.page, index) === found
                      ? {
                          className: 'found',
                          'data-testid': 'found-message',
                          ref: (row: HTMLTableRowElement | null) =>
                            row?.scrollIntoView({ block: 'center' }),
                        }
                      : {})}
                  >
                    <td>{positionOf(view.page, index)}</td>
                    <td>
                      <code>{message.id}</code>
                    </td>
                    <td>{message.role}</td>
                    <td>
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
            <h3>Runs, newest first</h3>
            <div data-testid="runs">
              {view.runs.map((run) => (
                <details
                  key={run.runId}
                  className={`run ${run.status}`}
                  data-testid="run"
                  onToggle={(event) => {
                    if (event.currentTarget.open)
                      setOpenRuns((open) => new Set(open).add(run.runId));
                  }}
                >
                  <summary>
                    <code>{run.runId}</code> <strong>{run.status}</strong> {time(run.createdAt)}
                    {run.attempts !== undefined &&
                      ` · ${run.attempts} attempt${run.attempts === 1 ? '' : 's'}`}
                    {run.result &&
                      ` · version ${run.result.version} · long-term flushed ${run.result.longterm.flushed}, refused ${run.result.longterm.refused}`}
                  </summary>
                  {run.error && (
                    <p className="error">
                      {run.error.name}: {run.error.message}
                    </p>
                  )}
                  {openRuns.has(run.runId) && <RunStepsView runId={run.runId} />}
                </details>
              ))}
              {view.runsCursor && (
                <button onClick={() => void openConversation(view.runsCursor)}>More runs</button>
              )}
            </div>
            <h3>Working memory ({view.workingMemory.sizeBytes} bytes)</h3>
            <table data-testid="working-memory">
              <tbody>
                {view.workingMemory.entries.map((entry) => (
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
          </>
        )}
      </section>
      <section>
        <h2>Long-term memory</h2>
        <form
          onSubmit={(event) => {
            event.preventDefault();
            void searchRecords();
          }}
        >
          <input
            data-testid="inspect-entity"
            value={entityId}
            onChange={(event) => setEntityId(event.target.value)}
          />
          <input
            data-testid="inspect-prefix"
            placeholder="key prefix"
            value={prefix}
            onChange={(event) => setPrefix(event.target.value)}
          />
          <button data-testid="search-records" type="submit">
            Search
          </button>
        </form>
        {records && (
          <table data-testid="records">
            <tbody>
              {records.map((record) => (
                <tr key={record.key}>
                  <td>
                    <code>{record.key}</code>
                  </td>
                  <td>
                    <code>{JSON.stringify(record.value)}</code>
                  </td>
                  <td>seq {record.seq}</td>
                  <td>{time(record.updatedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        <RecallSearch
          entityId={entityId}
          onError={setError}
          onOpenMessage={(id, position) => {
            setConversationId(id);
            void openConversation(undefined, id, position);
          }}
        />
      </section>
    </main>
  );
}

/** The 1-based position of a page's `index`-th message: the page starts at its `before` (or 1). */
function positionOf(page: MessagesPage, index: number): number {
  return (page.before ?? 1) + index;
}
