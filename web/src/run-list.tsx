import { useState } from 'react';
import { shortId } from './relative-time.js';
import { RunStepsView } from './run-steps-view.js';
import type { RunRecord } from './types.js';

const time = (epochMs: number) => new Date(epochMs).toLocaleString();

/**
 * A conversation's runs, newest first: each run's status, attempts and result in a summary that
 * opens to its steps (loaded on first open); "More runs" follows the cursor.
 */
export function RunList({
  runs,
  more,
  onMore,
}: {
  runs: RunRecord[];
  more: boolean;
  onMore: () => void;
}) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  return (
    <div data-testid="runs">
      {runs.length === 0 && <p className="meta">No runs.</p>}
      {runs.map((run) => (
        <details
          key={run.runId}
          className={`run ${run.status}`}
          data-testid="run"
          onToggle={(event) => {
            if (event.currentTarget.open) setOpen((shown) => new Set(shown).add(run.runId));
          }}
        >
          <summary>
            <code title={run.runId}>{shortId(run.runId)}</code> <strong>{run.status}</strong>{' '}
            {time(run.createdAt)}
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
          {open.has(run.runId) && <RunStepsView runId={run.runId} />}
        </details>
      ))}
      {more && (
        <button type="button" className="secondary" onClick={onMore}>
          More runs
        </button>
      )}
    </div>
  );
}
