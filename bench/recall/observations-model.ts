import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import type { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import {
  type FormationJob,
  MemoryFormation,
} from '../../src/modules/formation/memory-formation.js';
import type { LocomoSession } from './locomo-observations.js';

/**
 * The scripted formation model of the LoCoMo benchmarks: the extraction answers with the facts
 * LoCoMo ships for the session being formed (`session_K_observation`, each with the turns it rests
 * on), and the choice adds each (the consolidation rules decide duplicates). Counts its calls.
 */
export class ObservationsModel implements MemoryFormationModel {
  readonly id = 'locomo-observations';
  session?: LocomoSession;
  calls = 0;

  extract() {
    this.calls += 1;
    const candidates = this.session!.facts.map((fact) => ({
      text: fact.text,
      kind: 'fact',
      messageIds: fact.turnIds,
    }));
    return Promise.resolve({ candidates });
  }

  choose(input: { candidates: unknown[] }) {
    this.calls += 1;
    return Promise.resolve({ choices: input.candidates.map(() => ({ op: 'ADD' as const })) });
  }
}

/**
 * The formation both LoCoMo benchmarks run: the real pipeline with `model`, each step's answer kept
 * in process memory (a job is never retried here), and bounds every observation of a conversation
 * fits (the default cap is 2,000 memories, 512 KiB).
 */
export function observationsFormation(
  memories: FormedMemories,
  model: ObservationsModel,
): MemoryFormation {
  const steps = new Map<string, unknown>();
  return new MemoryFormation(
    memories,
    model,
    async (job, step, compute) => {
      const key = `${job.jobId}/${step}`;
      if (!steps.has(key)) steps.set(key, await compute());
      return steps.get(key) as never;
    },
    {
      kinds: ['fact'],
      maxCandidates: 100,
      neighbours: 5,
      maxInputTokens: 100_000,
      maxActive: { count: 100_000, bytes: 100_000_000 },
      // No budget cut: every observation of a session is asked about, as before budgets.
      maxJobTokens: 10_000_000,
    },
  );
}

/** The formation job of one LoCoMo session of a conversation, for `entityId`, at `seq`. */
export function sessionJob(
  entityId: string,
  conversationId: string,
  session: LocomoSession,
  seq: number,
): FormationJob {
  return {
    jobId: `${entityId}/${session.id}`,
    entityId,
    conversationId: `${conversationId}-${session.id}`,
    runId: `${conversationId}-${session.id}`,
    messages: session.turns.map((turn) => ({ id: turn.id, role: 'user', text: turn.text })),
    context: [],
    observedAt: session.at,
    seq,
  };
}
