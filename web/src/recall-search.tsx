import { useState } from 'react';
import { getJson, seg } from './api.js';
import type { MemoryRecord } from './types.js';

/** Where a hit stood in one list, and its score there. */
interface RecallRank {
  rank: number;
  score: number;
}

/** One hit of `GET /entities/:entityId/recall`. */
interface RecallHit {
  key: string;
  record: MemoryRecord;
  score: number;
  lexical?: RecallRank;
  vector?: RecallRank;
}

const rank = (name: string, found?: RecallRank) =>
  found ? `${name} #${found.rank} (${found.score.toFixed(3)})` : undefined;

/**
 * Recall by content for the inspector: an entity's records that best match some words, best first,
 * with the fused score and where each list (full-text, vector) ranked it; "no match" said plainly.
 */
export function RecallSearch({
  entityId,
  onError,
}: {
  entityId: string;
  onError(message?: string): void;
}) {
  const [query, setQuery] = useState('');
  const [mode, setMode] = useState('hybrid');
  const [hits, setHits] = useState<RecallHit[]>();

  const recall = () =>
    getJson<{ hits: RecallHit[] }>(
      `/entities/${seg(entityId)}/recall?q=${encodeURIComponent(query)}&k=20&mode=${mode}`,
    )
      .then((answer) => {
        setHits(answer.hits);
        onError(undefined);
      })
      .catch((failure: Error) => onError(failure.message));

  return (
    <div className="recall">
      <form
        onSubmit={(event) => {
          event.preventDefault();
          void recall();
        }}
      >
        <label>
          Recall by content{' '}
          <input
            data-testid="recall-query"
            placeholder="words to look for"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
        </label>
        <label>
          {' '}
          Lists{' '}
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
        <button data-testid="recall" type="submit" disabled={query.trim() === ''}>
          Recall
        </button>
      </form>
      {hits && hits.length === 0 && <p data-testid="recall-none">No record matches these words.</p>}
      {hits && hits.length > 0 && (
        <table data-testid="recall-hits">
          <thead>
            <tr>
              <th>Key</th>
              <th>Value</th>
              <th>Score</th>
              <th>Found by</th>
            </tr>
          </thead>
          <tbody>
            {hits.map((hit) => (
              <tr key={hit.key} data-testid="recall-hit">
                <td>
                  <code>{hit.key}</code>
                </td>
                <td>
                  <code>{JSON.stringify(hit.record.value)}</code>
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
      )}
    </div>
  );
}
