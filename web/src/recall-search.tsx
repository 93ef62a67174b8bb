import { useState } from 'react';
import { getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import type { MemoryRecord } from './types.js';

/** Where a hit stood in one list, and its score there. */
interface RecallRank {
  rank: number;
  score: number;
}

/** A recalled message: where it is, who said it, its text. */
interface RecalledMessage {
  conversationId: string;
  position: number;
  messageId: string;
  role: 'user' | 'assistant';
  text: string;
  at: number;
}

/** One hit of `GET /entities/:entityId/recall`: a record (`key`, `record`) or a `message`. */
interface RecallHit {
  source: 'record' | 'message';
  key?: string;
  record?: MemoryRecord;
  message?: RecalledMessage;
  score: number;
  lexical?: RecallRank;
  vector?: RecallRank;
}

const SCOPE_NONE: Record<string, string> = {
  records: 'No matches: no record matches these words.',
  messages: 'No matches: no message matches these words.',
  all: 'No matches: no record or message matches these words.',
};

const rank = (name: string, found?: RecallRank) =>
  found ? `${name} #${found.rank} (${found.score.toFixed(3)})` : undefined;

/**
 * Recall by content for the inspector: an entity's records, or the messages of its conversations,
 * that best match some words, best first, with the fused score and where each list (full-text,
 * vector) ranked it; a message hit opens its conversation at that message; "no match" said plainly.
 */
export function RecallSearch({
  entityId,
  onError,
  onOpenMessage,
}: {
  entityId: string;
  onError(message?: string): void;
  onOpenMessage(conversationId: string, position: number): void;
}) {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('hybrid');
  const [scope, setScope] = useState('records');
  const [answer, setAnswer] = useState<{ hits: RecallHit[]; scope: string }>();
  const hits = answer?.hits;

  const recall = () =>
    getJson<{ hits: RecallHit[] }>(
      `/entities/${seg(entityId)}/recall?q=${encodeURIComponent(query)}&k=20&mode=${mode}&scope=${scope}`,
    )
      .then((found) => {
        setAnswer({ hits: found.hits, scope });
        onError(undefined);
      })
      .catch((failure: unknown) => onError(reportFailure(failure)));

  return (
    <div className="recall">
      <h3>Recall by content</h3>
      <form
        className="fields"
        onSubmit={(event) => {
          event.preventDefault();
          void recall();
        }}
      >
        <label>
          Words
          <input
            data-testid="recall-query"
            placeholder="words to look for"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </label>
        <label>
          Lists
          <select
            data-testid="recall-mode"
            value={mode}
            onChange={(event) => setMode(event.target.value)}
          >
            <option value="hybrid">full-text and vector</option>
            <option value="lexical">full-text only</option>
            <option value="vector">vector only</option>
          </select>
        </label>
        <label>
          Search in
          <select
            data-testid="recall-scope"
            value={scope}
            onChange={(event) => setScope(event.target.value)}
          >
            <option value="records">records</option>
            <option value="messages">messages</option>
            <option value="all">records and messages</option>
          </select>
        </label>
        <button data-testid="recall" type="submit" disabled={query.trim() === ''}>
          Recall
        </button>
      </form>
      {answer && answer.hits.length === 0 && (
        <p className="empty" data-testid="recall-none">
          {SCOPE_NONE[answer.scope]}
        </p>
      )}
      {hits && hits.length > 0 && (
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Recalled">
          <table data-testid="recall-hits">
            <thead>
              <tr>
                <th scope="col">Found</th>
                <th scope="col">Text</th>
                <th scope="col">Score</th>
                <th scope="col">Found by</th>
              </tr>
            </thead>
            <tbody>
              {hits.map((hit) => (
                <tr
                  key={
                    hit.message ? `${hit.message.conversationId}#${hit.message.position}` : hit.key
                  }
                  data-testid="recall-hit"
                >
                  <td>
                    {hit.message ? (
                      <button
                        type="button"
                        data-testid="recall-open-message"
                        title={`Open ${hit.message.conversationId} at message ${hit.message.position}`}
                        onClick={() =>
                          onOpenMessage(hit.message!.conversationId, hit.message!.position)
                        }
                      >
                        {hit.message.role} in {hit.message.conversationId} #{hit.message.position}
                      </button>
                    ) : (
                      <code>{hit.key}</code>
                    )}
                  </td>
                  <td>
                    {hit.message ? (
                      hit.message.text
                    ) : (
                      <code>{JSON.stringify(hit.record?.value)}</code>
                    )}
                  </td>
                  <td>{hit.score.toFixed(4)}</td>
                  <td>
                    {[rank('full-text', hit.lexical), rank('vector', hit.vector)]
                      .filter(Boolean)
                      .join(' · ')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
