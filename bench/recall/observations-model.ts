import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
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
