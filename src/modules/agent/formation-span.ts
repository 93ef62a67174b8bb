import type { Span } from '@opentelemetry/api';
import { ATTR } from '../../common/telemetry/attributes.js';
import { inSpan } from '../../common/telemetry/spans.js';
import type { FormationJobRecord } from '../formation/formed-memories.js';
import type { FormationJob } from '../formation/memory-formation.js';

/** The span of one formation job, and its `gen_ai.operation.name`. */
export const FORMATION_SPAN = 'memory_formation';
export const FORMATION_OPERATION = 'form_memories';

/** Attributes of a formation job's span (`agent_memory.formation.*`). */
export const FORMATION_ATTR = {
  outcome: 'agent_memory.formation.outcome',
  /** From the turn's commit (the job's time) to the job's end, in ms. */
  lagMs: 'agent_memory.formation.lag_ms',
  /** Operations by type: `agent_memory.formation.operations.add`, `.update`, `.invalidate`, `.none`. */
  operations: 'agent_memory.formation.operations',
} as const;

/** How a formation job ended, as its span says. */
export type FormationSpanOutcome =
  'written' | 'already-written' | 'failed' | 'refused' | 'left-for-next-process';

/**
 * Runs a formation job in its own span (a child of whatever is active as it starts, if anything):
 * its run, entity and conversation; what it did is set when it ends (`recordFormation`). Holds no
 * memory text: contents stay out of traces.
 */
export function inFormationSpan<T>(
  job: FormationJob,
  work: (span: Span) => Promise<T>,
): Promise<T> {
  return inSpan(
    FORMATION_SPAN,
    () => ({
      [ATTR.operation]: FORMATION_OPERATION,
      [ATTR.runId]: job.runId,
      [ATTR.entityId]: job.entityId,
      [ATTR.conversationId]: job.conversationId,
    }),
    work,
  );
}

/** Sets how the job ended on its span: the outcome, the lag, its operations and tokens. */
export function recordFormation(
  span: Span | undefined,
  job: FormationJob,
  outcome: FormationSpanOutcome,
  record?: Pick<FormationJobRecord, 'operations' | 'usage'>,
): void {
  if (!span?.isRecording()) return;
  span.setAttribute(FORMATION_ATTR.outcome, outcome);
  span.setAttribute(FORMATION_ATTR.lagMs, Math.max(0, Date.now() - job.observedAt));
  if (!record) return;
  const counts = { add: 0, update: 0, invalidate: 0, none: 0 };
  for (const { op } of record.operations) counts[op.toLowerCase() as keyof typeof counts] += 1;
  for (const [op, count] of Object.entries(counts))
    span.setAttribute(`${FORMATION_ATTR.operations}.${op}`, count);
  if (record.usage) {
    span.setAttribute(ATTR.inputTokens, record.usage.promptTokens);
    span.setAttribute(ATTR.outputTokens, record.usage.completionTokens);
  }
}
