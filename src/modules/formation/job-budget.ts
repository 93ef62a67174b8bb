import type { FormationMessage, FormationUsage } from './formation-model.interface.js';
import type { FormedMemory, MemoryCandidate } from './formed-memory.interface.js';

/** Tokens a job spends by default at most (both calls, prompt and completion): 20,000. */
export const DEFAULT_MAX_JOB_TOKENS = 20_000;
/** How a candidate left out for the budget is overruled (then the budget and the option). */
export const OVER_BUDGET = "over the job's token budget";
/** About this many characters make a token (for the estimate made before a call). */
const CHARS_PER_TOKEN = 4;
/** The consolidation call's instructions and tool schema, in tokens (measured on its prompt). */
const CHOOSE_OVERHEAD_TOKENS = 400;
/** Per candidate: its framing in the prompt and the choice it is answered with. */
const PER_CANDIDATE_TOKENS = 40;

/** The messages in order within `maxChars` of text: the last one read is cut, later ones left out. */
export function withinBudget(messages: FormationMessage[], maxChars: number): FormationMessage[] {
  const kept: FormationMessage[] = [];
  let left = maxChars;
  for (const message of messages) {
    if (left <= 0) break;
    kept.push(
      message.text.length <= left ? message : { ...message, text: message.text.slice(0, left) },
    );
    left -= message.text.length;
  }
  return kept;
}

/**
 * How many of the candidates (in order) the consolidation call can be asked about within the
 * job's token budget, after the extraction spent `spent` tokens (as the model reported them): the
 * call's cost is estimated from the text it would carry — each candidate and the memories it is
 * compared with, about 4 characters a token — plus its instructions.
 */
export function affordableCandidates(
  candidates: readonly MemoryCandidate[],
  neighbours: readonly FormedMemory[][],
  spent: number,
  maxJobTokens: number,
): number {
  let total = spent + CHOOSE_OVERHEAD_TOKENS;
  for (const [index, candidate] of candidates.entries()) {
    const chars =
      candidate.text.length +
      (neighbours[index] ?? []).reduce((sum, memory) => sum + memory.text.length + 30, 0);
    total += Math.ceil(chars / CHARS_PER_TOKEN) + PER_CANDIDATE_TOKENS;
    if (total > maxJobTokens) return index;
  }
  return candidates.length;
}

/** No tokens (a job found written). */
export const NO_USAGE: FormationUsage = Object.freeze({ promptTokens: 0, completionTokens: 0 });

/** The tokens of two calls together. */
export function sumUsage(
  a: FormationUsage | undefined,
  b: FormationUsage | undefined,
): FormationUsage {
  return {
    promptTokens: (a?.promptTokens ?? 0) + (b?.promptTokens ?? 0),
    completionTokens: (a?.completionTokens ?? 0) + (b?.completionTokens ?? 0),
  };
}
