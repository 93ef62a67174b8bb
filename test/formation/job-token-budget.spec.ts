import { describe, expect, it } from '@jest/globals';
import type {
  ChoiceInput,
  MemoryFormationModel,
} from '../../src/modules/formation/formation-model.interface.js';
import {
  DEFAULT_FORMATION_SETTINGS,
  MemoryFormation,
} from '../../src/modules/formation/memory-formation.js';
import { formationTier, stepRecorder } from './formation-backends.js';

/**
 * A model whose extraction reports `spent` tokens and finds three facts; its consolidation adds
 * each candidate it is asked about, noting how many that were.
 */
function spendingModel(spent: number) {
  const asked: number[] = [];
  const model: MemoryFormationModel = {
    id: 'spending',
    async extract(input) {
      const messageIds = [input.messages[0]!.id];
      return {
        candidates: ['The user keeps bees', 'The user lives in Oslo', 'The user likes jazz'].map(
          (text) => ({ text, kind: 'fact', messageIds }),
        ),
        usage: { promptTokens: spent - 100, completionTokens: 100 },
      };
    },
    async choose(input: ChoiceInput) {
      asked.push(input.candidates.length);
      return {
        choices: input.candidates.map(() => ({ op: 'ADD' as const })),
        usage: { promptTokens: 0, completionTokens: 0 },
      };
    },
  };
  return { model, asked };
}

describe("a formation job's token budget (maxJobTokens)", () => {
  const tier = formationTier('memory://');
  let jobs = 0;
  const run = async (spent: number, maxJobTokens?: number) => {
    const { memories } = tier();
    const { model, asked } = spendingModel(spent);
    jobs += 1;
    const entityId = `budget-${jobs}`;
    const outcome = await new MemoryFormation(memories, model, stepRecorder(), {
      ...DEFAULT_FORMATION_SETTINGS,
      ...(maxJobTokens ? { maxJobTokens } : {}),
    }).run({
      jobId: `run-b${jobs}/f1`,
      entityId,
      conversationId: 'c1',
      runId: `run-b${jobs}`,
      messages: [{ id: 'm1', role: 'user', text: 'I keep bees in Oslo and I like jazz.' }],
      context: [],
      observedAt: Date.UTC(2026, 5, 1),
      seq: await memories.nextSeq(entityId),
    });
    return { outcome, asked };
  };

  it('asks about every candidate when the job has room', async () => {
    const { outcome, asked } = await run(1_000);
    expect(asked).toEqual([3]);
    expect(outcome.record.operations.map((operation) => operation.op)).toEqual([
      'ADD',
      'ADD',
      'ADD',
    ]);
  });

  it('does not ask about the candidates past the budget: NONE, with the reason', async () => {
    // 19,500 spent by the extraction: the consolidation of two candidates fits in 20,000, not three.
    const { outcome, asked } = await run(19_500);
    expect(asked).toEqual([2]);
    expect(outcome.record.operations).toEqual([
      expect.objectContaining({ candidate: 0, op: 'ADD' }),
      expect.objectContaining({ candidate: 1, op: 'ADD' }),
      {
        candidate: 2,
        op: 'NONE',
        overruled: "over the job's token budget of 20000 (formation.maxJobTokens)",
      },
    ]);
  });

  it('asks nothing more when the extraction spent the budget', async () => {
    const { outcome, asked } = await run(5_000, 5_000);
    expect(asked).toEqual([]);
    expect(outcome.status).toBe('written');
    expect(outcome.record.operations.map((operation) => operation.overruled)).toEqual([
      "over the job's token budget of 5000 (formation.maxJobTokens)",
      "over the job's token budget of 5000 (formation.maxJobTokens)",
      "over the job's token budget of 5000 (formation.maxJobTokens)",
    ]);
  });
});
