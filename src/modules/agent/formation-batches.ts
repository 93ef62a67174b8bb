import type { FormationCadence } from '../formation/formation.options.js';
import type { JournaledFormation } from './formation-journal.js';

/**
 * Turns waiting to be formed together, per entity and conversation, in this process: a batch is
 * handed to `form` once it holds `turns` turns, or once its conversation has been quiet for
 * `quietMs` after its last turn, or at shutdown (`flush`). Each turn's job stays noted in the
 * journal meanwhile, so a process that dies with a batch leaves its turns to be formed one by one.
 */
export class FormationBatches {
  private readonly waiting = new Map<
    string,
    { jobs: JournaledFormation[]; timer?: NodeJS.Timeout }
  >();
  private turns = 0;

  constructor(
    private readonly cadence: FormationCadence,
    private readonly form: (jobs: JournaledFormation[]) => void,
  ) {}

  /** A turn committed: its job joins its conversation's batch. */
  add(job: JournaledFormation): void {
    const key = JSON.stringify([job.entityId, job.conversationId]);
    const batch = this.waiting.get(key) ?? { jobs: [] };
    this.waiting.set(key, batch);
    if (!batch.jobs.some((held) => held.runId === job.runId)) {
      batch.jobs.push(job);
      this.turns += 1;
    }
    clearTimeout(batch.timer);
    if (batch.jobs.length >= this.cadence.turns || this.cadence.quietMs === 0) this.hand(key);
    else batch.timer = setTimeout(() => this.hand(key), this.cadence.quietMs).unref();
  }

  /** Hands every batch over now (at shutdown). */
  flush(): void {
    for (const key of [...this.waiting.keys()]) this.hand(key);
  }

  /** Turns waiting in batches now (kept as they come and go: read on every commit). */
  get size(): number {
    return this.turns;
  }

  private hand(key: string): void {
    const batch = this.waiting.get(key);
    if (!batch) return;
    clearTimeout(batch.timer);
    this.waiting.delete(key);
    this.turns -= batch.jobs.length;
    this.form(batch.jobs);
  }
}
