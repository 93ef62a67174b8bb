import { useEffect, useState } from 'react';
import { callApi, getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import type { FailedFormation, FormationRerun } from './types.js';

/** Failed jobs a page shows. */
const PAGE = 20;

/**
 * An entity's formation jobs that spent their attempts (`GET /entities/:id/formation-failures`):
 * when, which conversation, the attempts and the error, each with a button that runs it again
 * (`POST …/:runId/rerun`); a job written then leaves the list and `onFormed` reloads the memories.
 */
export function FormationFailures({
  entityId,
  reload,
  onError,
  onFormed,
}: {
  entityId: string;
  /** Counts the loads of the memories: the failures are read after each (none before the first). */
  reload: number;
  onError: (message?: string) => void;
  onFormed: () => void;
}) {
  const [failures, setFailures] = useState<FailedFormation[]>([]);
  const [outcome, setOutcome] = useState<string>();
  const [running, setRunning] = useState<string>();

  const load = () =>
    getJson<{ failures: FailedFormation[] }>(
      `/entities/${seg(entityId)}/formation-failures?limit=${PAGE}`,
    )
      .then((answer) => setFailures(answer.failures))
      .catch((failure: unknown) => {
        setFailures([]);
        onError(reportFailure(failure));
      });

  // Another entity: none of the last one's failures (or their Rerun buttons) until its own load.
  useEffect(() => {
    setOutcome(undefined);
    setFailures([]);
  }, [entityId]);
  // Read with each load of the memories (for this entity), not again on their own.
  useEffect(() => {
    if (reload > 0) void load();
  }, [reload]);

  const rerun = async (failure: FailedFormation) => {
    setRunning(failure.runId);
    try {
      const answer = await callApi<FormationRerun>(
        `/entities/${seg(entityId)}/formation-failures/${seg(failure.runId)}/rerun`,
        'POST',
      );
      setOutcome(
        answer.status === 'written' || answer.status === 'already-written'
          ? `Formed: ${answer.operations?.filter((op) => op.op !== 'NONE').length ?? 0} change(s).`
          : `Failed again: ${answer.error ?? answer.status}`,
      );
      if (answer.status === 'written' || answer.status === 'already-written') onFormed();
      await load();
    } catch (failure: unknown) {
      onError(reportFailure(failure));
    } finally {
      setRunning(undefined);
    }
  };

  if (failures.length === 0 && !outcome) return null;
  return (
    <>
      <h4>Failed formation jobs</h4>
      {outcome && (
        <p className="meta" role="status" data-testid="formation-rerun-outcome">
          {outcome}
        </p>
      )}
      {failures.length > 0 && (
        <ul
          className="failures"
          data-testid="formation-failures"
          aria-label="Failed formation jobs"
        >
          {failures.map((failure) => (
            <li key={failure.jobId} className="run failed" data-testid="formation-failure">
              <p className="meta">
                {new Date(failure.at).toLocaleString()} · {failure.conversationId} ·{' '}
                {failure.attempts} attempt{failure.attempts === 1 ? '' : 's'}
              </p>
              <p className="error">{failure.error}</p>
              <button
                type="button"
                className="secondary"
                data-testid="formation-rerun"
                disabled={running !== undefined}
                onClick={() => void rerun(failure)}
              >
                {running === failure.runId ? 'Running…' : 'Run again'}
              </button>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
