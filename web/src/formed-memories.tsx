import { useEffect, useState } from 'react';
import { getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import { EntityProfile } from './entity-profile.js';
import { FormationFailures } from './formation-failures.js';
import { FormationJobs } from './formation-jobs.js';
import type { FormedMemory } from './types.js';

const day = (epochMs: number) => new Date(epochMs).toLocaleDateString();

/** Whether a version holds now, was replaced, or was retracted. */
function statusOf(memory: FormedMemory): string {
  if (memory.supersededBy) return `replaced on ${day(memory.validUntil ?? memory.observedAt)}`;
  if (memory.validUntil !== undefined && memory.validUntil <= Date.now())
    return `retracted on ${day(memory.validUntil)}`;
  return 'active';
}

/**
 * The memories formed from an entity's conversations (`GET /entities/:id/formed-memories`): what
 * holds now, or every version; each with its kind, since when it holds, its status, its source (a
 * click opens the conversation at the message) and its history (every version, oldest first); the
 * entity's profile, the jobs that formed them and those that failed.
 */
export function FormedMemories({
  entityId,
  conversationId,
  onError,
  onOpenMessage,
}: {
  entityId: string;
  /** The conversation open in the inspector: the formation jobs listed are its own. */
  conversationId?: string;
  onError: (message?: string) => void;
  onOpenMessage: (conversationId: string, messageId: string) => void;
}) {
  const [all, setAll] = useState(false);
  const [memories, setMemories] = useState<FormedMemory[]>();
  const [history, setHistory] = useState<FormedMemory[]>();
  /** Bumped by each load: the failed jobs are read again with the memories. */
  const [loads, setLoads] = useState(0);

  const load = (entity = entityId, every = all) =>
    getJson<{ memories: FormedMemory[] }>(
      `/entities/${seg(entity)}/formed-memories?limit=200${every ? '&state=all' : ''}`,
    )
      .then((answer) => {
        setMemories(answer.memories);
        setLoads((count) => count + 1);
        onError(undefined);
      })
      .catch((failure: unknown) => {
        setMemories(undefined);
        onError(reportFailure(failure));
      });

  const showHistory = (memory: FormedMemory) =>
    getJson<{ history: FormedMemory[] }>(
      `/entities/${seg(entityId)}/formed-memories/${seg(memory.id)}`,
    )
      .then((answer) => setHistory(answer.history))
      .catch((failure: unknown) => onError(reportFailure(failure)));

  useEffect(() => {
    setHistory(undefined);
    if (!entityId.trim()) return;
    const timer = setTimeout(() => void load(entityId), 300);
    return () => clearTimeout(timer);
  }, [entityId]);

  return (
    <>
      <h3>Formed memories</h3>
      <div className="fields">
        <label className="check">
          <input
            type="checkbox"
            data-testid="formed-all"
            checked={all}
            onChange={(event) => {
              setAll(event.target.checked);
              void load(entityId, event.target.checked);
            }}
          />
          Every version
        </label>
        <button type="button" data-testid="formed-refresh" onClick={() => void load()}>
          Refresh
        </button>
      </div>
      {memories && memories.length > 0 && (
        <MemoryTable
          label="Formed memories"
          testId="formed-memories"
          memories={memories}
          onHistory={(memory) => void showHistory(memory)}
          onOpenMessage={onOpenMessage}
        />
      )}
      {memories?.length === 0 && (
        <p className="empty" data-testid="no-formed-memories">
          No formed memories yet: with formation on, tell the chat about yourself (“My name is Ada.
          I live in Paris.”) with this entity.
        </p>
      )}
      {entityId.trim() && <EntityProfile entityId={entityId} reload={loads} onError={onError} />}
      {entityId.trim() && (
        <FormationJobs
          entityId={entityId}
          reload={loads}
          onError={onError}
          {...(conversationId ? { conversationId } : {})}
        />
      )}
      {entityId.trim() && (
        <FormationFailures
          entityId={entityId}
          reload={loads}
          onError={onError}
          onFormed={() => void load()}
        />
      )}
      {history && (
        <>
          <h4>History, oldest first</h4>
          <MemoryTable
            label="A memory's history"
            testId="formed-history"
            memories={history}
            onOpenMessage={onOpenMessage}
          />
        </>
      )}
    </>
  );
}

/** Formed memories as a table: text, kind, since when, status, and a source that opens its message. */
export function MemoryTable({
  label,
  testId,
  memories,
  onHistory,
  onOpenMessage,
}: {
  label: string;
  testId: string;
  memories: FormedMemory[];
  onHistory?: (memory: FormedMemory) => void;
  onOpenMessage: (conversationId: string, messageId: string) => void;
}) {
  return (
    <div className="table-scroll" tabIndex={0} role="region" aria-label={label}>
      <table data-testid={testId}>
        <thead>
          <tr>
            <th scope="col">Memory</th>
            <th scope="col">Kind</th>
            <th scope="col">Since</th>
            <th scope="col">Status</th>
            <th scope="col">Source</th>
          </tr>
        </thead>
        <tbody>
          {memories.map((memory) => {
            const source = memory.sources[0];
            const messageId = source?.messageIds[0];
            return (
              <tr key={memory.id}>
                <td>
                  {memory.text}
                  {memory.origin === 'edit' && <span className="meta"> (edited)</span>}
                  {onHistory && (memory.supersedes || memory.supersededBy) && (
                    <>
                      {' '}
                      <button
                        type="button"
                        data-testid="formed-history-open"
                        onClick={() => onHistory(memory)}
                      >
                        History
                      </button>
                    </>
                  )}
                </td>
                <td>{memory.kind}</td>
                <td>{day(memory.validFrom ?? memory.observedAt)}</td>
                <td>{statusOf(memory)}</td>
                <td>
                  {source && messageId && source.conversationId && (
                    <button
                      type="button"
                      className="source"
                      data-testid="formed-source"
                      title={`Open ${source.conversationId} at the message this rests on`}
                      onClick={() => onOpenMessage(source.conversationId, messageId)}
                    >
                      {source.conversationId}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
