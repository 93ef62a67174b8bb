import { useEffect, useState } from 'react';
import { getJson, seg } from './api.js';
import { reportFailure } from './errors.js';
import { ShortId } from './short-id.js';
import type { FormationJob } from './types.js';

/** Jobs a list reads at most (one page of the route). */
const PAGE = 100;
/** Jobs a list shows, newest first. */
const SHOWN = 20;

/** "ADD 2 · NONE 1": how many of each operation a job applied. */
function operationCounts(job: FormationJob): string {
  const counts = new Map<string, number>();
  for (const { op } of job.operations) counts.set(op, (counts.get(op) ?? 0) + 1);
  return counts.size === 0
    ? 'nothing to form'
    : [...counts].map(([op, count]) => `${op} ${count}`).join(' · ');
}

/**
 * The formation jobs written for an entity (`GET /entities/:id/formation-jobs`) — those of the
 * conversation open in the inspector when one is, else the entity's first page —, newest first:
 * when, the run, the model, its tokens, what it applied (each overruled choice with the rule's
 * reason) and what it did to the profile. Read again with each load of the memories.
 */
export function FormationJobs({
  entityId,
  conversationId,
  reload,
  onError,
}: {
  entityId: string;
  conversationId?: string;
  reload: number;
  onError: (message?: string) => void;
}) {
  const [jobs, setJobs] = useState<FormationJob[]>([]);
  /** Whether the page read was full (more jobs than one page: not all of them are shown). */
  const [more, setMore] = useState(false);

  useEffect(() => {
    if (reload === 0) return;
    // An answer for an entity or conversation no longer shown is dropped.
    let current = true;
    const ofConversation = conversationId ? `&conversationId=${seg(conversationId)}` : '';
    getJson<{ jobs: FormationJob[]; cursor?: string }>(
      `/entities/${seg(entityId)}/formation-jobs?limit=${PAGE}${ofConversation}`,
    )
      .then((answer) => {
        if (!current) return;
        setJobs([...answer.jobs].sort((a, b) => b.at - a.at).slice(0, SHOWN));
        setMore(answer.cursor !== undefined);
      })
      .catch((failure: unknown) => {
        if (!current) return;
        // Nothing shown rather than the jobs of what was shown before.
        setJobs([]);
        onError(reportFailure(failure));
      });
    return () => {
      current = false;
    };
  }, [reload, entityId, conversationId]);

  if (jobs.length === 0) return null;
  return (
    <>
      <h4>Formation jobs{conversationId ? ` of ${conversationId}` : ''}, newest first</h4>
      {more && (
        <p className="meta">
          More than {PAGE} jobs: the newest of the first {PAGE} read are shown (open a conversation
          for its own).
        </p>
      )}
      <ul className="failures" data-testid="formation-jobs" aria-label="Formation jobs">
        {jobs.map((job) => (
          <li key={job.jobId} className="run completed" data-testid="formation-job">
            <p className="meta">
              {new Date(job.at).toLocaleString()} · run <ShortId id={job.runId} /> · {job.model}
              {job.usage
                ? ` · ${job.usage.promptTokens} + ${job.usage.completionTokens} tokens`
                : ''}
            </p>
            <p data-testid="formation-job-operations">{operationCounts(job)}</p>
            {job.operations
              .filter((operation) => operation.overruled)
              .map((operation) => (
                <p key={operation.candidate} className="meta">
                  candidate {operation.candidate + 1}: {operation.overruled}
                </p>
              ))}
            {job.profile && (
              <p className="meta" data-testid="formation-job-profile">
                profile {job.profile.status}
                {job.profile.members.length > 0 ? ` (${job.profile.members.join(', ')})` : ''}
                {job.profile.version !== undefined ? `, version ${job.profile.version}` : ''}
                {job.profile.reason ? `: ${job.profile.reason}` : ''}
              </p>
            )}
          </li>
        ))}
      </ul>
    </>
  );
}
