import { useEffect, useRef, useState } from 'react';
import { getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import { MemoryTable } from './formed-memories.js';
import type { FormedMemory, MemoryRecord } from './types.js';

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

/** Where messages come from: only an agent that indexes them puts them in recall. */
const MESSAGES_INDEXED =
  ' Messages are indexed by an agent with recall.messages on (in the example app, AGENT_RECALL_MESSAGES=true).';

const SCOPE_NONE: Record<string, string> = {
  records: 'No matches: no record matches these words.',
  messages: `No matches: no indexed message matches these words.${MESSAGES_INDEXED}`,
  all: `No matches: no record or indexed message matches these words.${MESSAGES_INDEXED}`,
  memories: 'No matches: no active formed memory matches these words.',
};

/** What one search found: recall hits, or formed memories (scope `memories`). */
interface Answer {
  scope: string;
  hits?: RecallHit[];
  memories?: FormedMemory[];
}

const rank = (name: string, found?: RecallRank) =>
  found ? `${name} #${found.rank} (${found.score.toFixed(3)})` : undefined;

/**
 * Recall by content for the inspector: an entity's records, the messages of its conversations, or
 * its active formed memories that best match some words, best first — a hit with the fused score
 * and where each list (full-text, vector) ranked it, a memory with its source; a message or a
 * source opens its conversation at that message; "no match" said plainly, and a refused search
 * said under its own form (the previous answer cleared).
 */
export function RecallSearch({
  entityId,
  onOpenMessage,
  onOpenSource,
}: {
  entityId: string;
  onOpenMessage(conversationId: string, position: number): void;
  /** Opens the conversation a formed memory rests on, at that message. */
  onOpenSource(conversationId: string, messageId: string): void;
}) {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('hybrid');
  const [scope, setScope] = useState('records');
  const [answer, setAnswer] = useState<Answer>();
  const [failure, setFailure] = useState<string>();
  /** Bumped by each search and each change of entity: only the latest search's answer shows. */
  const latest = useRef(0);
  useEffect(() => {
    latest.current += 1;
    setAnswer(undefined);
    setFailure(undefined);
  }, [entityId]);
  const hits = answer?.hits;
  const found = answer?.hits ?? answer?.memories;

  const search = (): Promise<Answer> => {
    const entity = seg(entityId);
    const words = encodeURIComponent(query);
    if (scope === 'memories')
      return getJson<{ memories: FormedMemory[] }>(
        `/entities/${entity}/formed-memories?q=${words}&limit=20`,
      ).then(({ memories }) => ({ scope, memories }));
    return getJson<{ hits: RecallHit[] }>(
      `/entities/${entity}/recall?q=${words}&k=20&mode=${mode}&scope=${scope}`,
    ).then(({ hits: recalled }) => ({ scope, hits: recalled }));
  };
  const recall = () => {
    const asked = (latest.current += 1);
    return search()
      .then((next) => {
        if (asked !== latest.current) return;
        setAnswer(next);
        setFailure(undefined);
      })
      .catch((refused: unknown) => {
        if (asked !== latest.current) return;
        setAnswer(undefined);
        setFailure(reportFailure(refused));
      });
  };

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
        {scope !== 'memories' && (
          <label>
            Lists
            <select
              data-testid="recall-mode"
              value={mode}
              title="The vector list needs an embedder (LongtermMemoryModule recall.embedder)"
              onChange={(event) => setMode(event.target.value)}
            >
              <option value="hybrid">full-text and vector</option>
              <option value="lexical">full-text only</option>
              <option value="vector">vector only</option>
            </select>
          </label>
        )}
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
            <option value="memories">formed memories</option>
          </select>
        </label>
        <button data-testid="recall" type="submit" disabled={query.trim() === ''}>
          Recall
        </button>
      </form>
      {failure && (
        <p className="error" role="alert" data-testid="recall-error">
          {failure}
        </p>
      )}
      {found?.length === 0 && (
        <p className="empty" data-testid="recall-none">
          {SCOPE_NONE[answer!.scope]}
        </p>
      )}
      {answer?.memories && answer.memories.length > 0 && (
        <MemoryTable
          label="Formed memories found"
          testId="recall-memories"
          memories={answer.memories}
          onOpenMessage={onOpenSource}
        />
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
