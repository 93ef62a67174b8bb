import { createHash } from 'node:crypto';
import type {
  AppliedOperation,
  ConsolidationChoice,
  FormedMemory,
  MemoryCandidate,
} from './formed-memory.interface.js';
import { MAX_MEMORY_TEXT } from './formation-answers.js';
import { hasWords, isNearDuplicate, isSameStatement } from './memory-similarity.js';

/** One formation job's consolidation: what it read, what the model chose, and its identity. */
export interface ConsolidationInput {
  entityId: string;
  /** The job's id: with a candidate's position, it names the memory a candidate adds (retries agree). */
  jobId: string;
  conversationId: string;
  runId: string;
  /** The messages the job read: a candidate may rest only on these. */
  messageIds: readonly string[];
  /** The job's time (epoch ms), fixed when it was queued, so a retry writes the same values. */
  now: number;
  /** When the messages were said (epoch ms). */
  observedAt: number;
  candidates: readonly MemoryCandidate[];
  /** One per candidate, by position; a missing one counts as NONE. */
  choices: readonly ConsolidationChoice[];
  /** The entity's active memories the candidates were compared with (others are ignored). */
  neighbours: readonly FormedMemory[];
  /** Candidates after this many are dropped (NONE, `overruled` saying why). */
  maxCandidates: number;
  /** Why candidates past `maxCandidates` are dropped (default: the job's cap). */
  capReason?: string;
  /** The kinds asked for: a candidate of another kind is NONE (default: any). */
  kinds?: readonly string[];
}

/** What a job writes (each memory once, in its final state) and what became of each candidate. */
export interface Consolidation {
  writes: FormedMemory[];
  operations: AppliedOperation[];
}

/**
 * Applies the model's choices under rules no answer can break:
 * - a candidate that says what an active memory says is NONE: a duplicate never adds, changes or
 *   closes anything. Nearly the same words ({@link isNearDuplicate}) is a duplicate when the model
 *   chose ADD or NONE; when it chose UPDATE or INVALIDATE (a refinement: "a nurse" to "a senior
 *   nurse"), only the same words are ({@link isSameStatement});
 * - UPDATE keeps the old version (closed with `validUntil` and `supersededBy`) and writes a new one
 *   (`supersedes`); a target that is not an active memory of the entity makes it an ADD; a closed
 *   version holds until the new one's `validFrom`, else until the statement was made;
 * - only a retraction invalidates (a non-retraction's INVALIDATE becomes an UPDATE, which keeps
 *   history); a retraction never adds;
 * - nothing is deleted; a candidate resting on messages outside the job, without words, over 500
 *   characters or of a kind not asked for is NONE;
 * - the ids of new versions come from the job id and the candidate's position, so a retried job
 *   writes the same memories.
 */
export function consolidate(input: ConsolidationInput): Consolidation {
  const active = new Map<string, FormedMemory>();
  for (const memory of input.neighbours)
    if (memory.entityId === input.entityId && isActive(memory, input.now))
      active.set(memory.id, memory);
  const written = new Map<string, FormedMemory>();
  /** Versions closed in this job, to the version that replaced them. */
  const replacedBy = new Map<string, string>();
  const allowed = new Set(input.messageIds);
  const operations: AppliedOperation[] = [];

  input.candidates.forEach((candidate, index) => {
    const choice = input.choices[index] ?? { op: 'NONE' };
    const none = (overruled?: string, memoryId?: string): void => {
      operations.push({
        candidate: index,
        op: 'NONE',
        ...(memoryId ? { memoryId } : {}),
        ...(overruled && choice.op !== 'NONE' ? { overruled } : {}),
      });
    };
    if (index >= input.maxCandidates) {
      // Never asked about (or past the cap): said so whatever the model's answer held.
      operations.push({
        candidate: index,
        op: 'NONE',
        overruled: input.capReason ?? `over the job's cap of ${input.maxCandidates}`,
      });
      return;
    }
    if (!hasWords(candidate.text)) return none('the candidate has no words');
    if (candidate.text.length > MAX_MEMORY_TEXT)
      return none(`the candidate is longer than ${MAX_MEMORY_TEXT} characters`);
    if (input.kinds && !input.kinds.includes(candidate.kind))
      return none(`kind ${JSON.stringify(candidate.kind)} is not one asked for`);
    if (
      candidate.messageIds.length === 0 ||
      candidate.messageIds.some((messageId) => !allowed.has(messageId))
    )
      return none('the candidate rests on messages outside the job');

    const newest = (id: string): string => {
      let current = id;
      while (replacedBy.has(current)) current = replacedBy.get(current)!;
      return current;
    };
    const target = 'target' in choice ? active.get(newest(choice.target)) : undefined;

    if (candidate.retraction) {
      if (choice.op !== 'INVALIDATE') return none('a retraction only invalidates');
      if (!target) return none(`${choice.target} is not an active memory of the entity`);
      active.delete(target.id);
      const closed = {
        ...target,
        validUntil: closeAt(target, candidate, input.observedAt),
        updatedAt: input.now,
      };
      written.set(closed.id, closed);
      operations.push({ candidate: index, op: 'INVALIDATE', target: target.id });
      return;
    }

    const sameAs =
      choice.op === 'UPDATE' || choice.op === 'INVALIDATE' ? isSameStatement : isNearDuplicate;
    const duplicate = [...active.values()].find((memory) => sameAs(memory.text, candidate.text));
    if (duplicate) return none(`a duplicate of ${duplicate.id} changes nothing`, duplicate.id);
    if (choice.op === 'NONE') return none();

    const id = memoryId(input.jobId, index);
    const fresh: FormedMemory = {
      id,
      entityId: input.entityId,
      text: candidate.text,
      kind: candidate.kind,
      sources: [
        {
          conversationId: input.conversationId,
          messageIds: [...candidate.messageIds],
          runId: input.runId,
        },
      ],
      observedAt: input.observedAt,
      ...(candidate.validFrom === undefined ? {} : { validFrom: candidate.validFrom }),
      createdAt: input.now,
      updatedAt: input.now,
    };
    const overruled =
      choice.op === 'INVALIDATE'
        ? 'only a retraction invalidates: recorded as an update, which keeps the old version'
        : choice.op === 'UPDATE' && !target
          ? `${choice.target} is not an active memory of the entity: added`
          : undefined;
    if (choice.op === 'ADD' || !target) {
      active.set(id, fresh);
      written.set(id, fresh);
      operations.push({
        candidate: index,
        op: 'ADD',
        memoryId: id,
        ...(overruled ? { overruled } : {}),
      });
      return;
    }
    const closed: FormedMemory = {
      ...target,
      validUntil: closeAt(target, candidate, input.observedAt),
      supersededBy: id,
      updatedAt: input.now,
    };
    const version: FormedMemory = { ...fresh, supersedes: target.id };
    active.delete(target.id);
    active.set(id, version);
    replacedBy.set(target.id, id);
    written.set(closed.id, closed);
    written.set(id, version);
    operations.push({
      candidate: index,
      op: 'UPDATE',
      memoryId: id,
      target: target.id,
      ...(overruled ? { overruled } : {}),
    });
  });
  return { writes: [...written.values()], operations };
}

/**
 * The ids of the versions a job creates — the new memories of its ADDs and UPDATEs — as opposed
 * to the versions of the entity it closes.
 */
export function createdBy(consolidation: Consolidation): Set<string> {
  return new Set(
    consolidation.operations.flatMap((operation) =>
      (operation.op === 'ADD' || operation.op === 'UPDATE') && operation.memoryId
        ? [operation.memoryId]
        : [],
    ),
  );
}

/** Whether a memory is active at a time: not superseded, and not past its `validUntil`. */
export function isActive(memory: FormedMemory, at: number): boolean {
  return (
    memory.supersededBy === undefined && (memory.validUntil === undefined || memory.validUntil > at)
  );
}

/**
 * The id of the memory version candidate `index` of job `jobId` writes: 22 base64url characters
 * of a SHA-256, the same for every attempt of the job.
 */
export function memoryId(jobId: string, index: number): string {
  return `m${createHash('sha256').update(`${jobId}\u0000${index}`).digest('base64url').slice(0, 22)}`;
}

/**
 * When a closed version stops holding: when the new one starts (its `validFrom`, else when it was
 * said), never before the old one began.
 */
function closeAt(old: FormedMemory, candidate: MemoryCandidate, observedAt: number): number {
  const start = old.validFrom ?? old.observedAt;
  return Math.max(candidate.validFrom ?? observedAt, start);
}

/**
 * A candidate's `validFrom` as the rules take it: a time the statement was already true, never
 * later than when it was said, nor not a time at all (then it has none).
 */
export function candidateWithinTime(
  candidate: MemoryCandidate,
  observedAt: number,
): MemoryCandidate {
  const { validFrom, ...rest } = candidate;
  return Number.isFinite(validFrom) && validFrom! <= observedAt ? candidate : rest;
}

/** The memories, each once (by id), in the order first seen. */
export function distinctMemories(memories: FormedMemory[]): FormedMemory[] {
  return [...new Map(memories.map((memory) => [memory.id, memory])).values()];
}
