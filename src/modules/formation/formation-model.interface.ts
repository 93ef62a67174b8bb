import type {
  ConsolidationChoice,
  FormedMemory,
  MemoryCandidate,
} from './formed-memory.interface.js';

/** A message a formation job reads: the new ones of a turn, or its context. */
export interface FormationMessage {
  id: string;
  role: 'user' | 'assistant' | 'system' | 'tool';
  /** The message's text (its text parts joined). */
  text: string;
}

/** What the extraction step is given. */
export interface ExtractionInput {
  entityId: string;
  /** The messages to draw memories from (a candidate may rest only on these). */
  messages: FormationMessage[];
  /** Earlier messages or the conversation's summary, for context only. */
  context: FormationMessage[];
  /** The kinds of memory the app wants (`fact`, `preference`, `event`, …). */
  kinds: string[];
  /** At most this many candidates are used. */
  maxCandidates: number;
  /** When the messages were said (epoch ms): the reference for "last month". */
  observedAt: number;
  /**
   * With `formation.profile`: the entity's profile as it is, and its JSON Schema — the model may
   * answer a merge patch of it (`profilePatch`).
   */
  profile?: { schema: Record<string, unknown>; document: Record<string, unknown> };
}

/** What the consolidation step is given: each candidate with the entity's nearest active memories. */
export interface ChoiceInput {
  entityId: string;
  candidates: MemoryCandidate[];
  /** Per candidate (by position), the entity's active memories nearest to it. */
  neighbours: FormedMemory[][];
}

/** Tokens one formation step used (absent for a model that calls no LLM). */
export interface FormationUsage {
  promptTokens: number;
  completionTokens: number;
}

/** What the extraction step answered. */
export interface ExtractionAnswer {
  candidates: MemoryCandidate[];
  /**
   * With a profile in the input: a JSON Merge Patch (RFC 7396) of it — the members the new messages
   * state, `null` for one the user took back — or nothing.
   */
  profilePatch?: Record<string, unknown>;
  usage?: FormationUsage;
}

/** What the consolidation step answered: one choice per candidate, by position. */
export interface ChoiceAnswer {
  choices: ConsolidationChoice[];
  usage?: FormationUsage;
}

/**
 * The model behind memory formation: draws candidate memories from messages, and chooses what each
 * does against the memories the entity already holds. Its answers are proposals: the consolidation
 * rules decide what is written.
 */
export interface MemoryFormationModel {
  /** A name for logs and formation records (a model id, or `plain-statements`). */
  readonly id: string;
  /** Draws candidate memories from the new messages (each resting on some of them). */
  extract(input: ExtractionInput): Promise<ExtractionAnswer>;
  /** Chooses, per candidate, what it does against the entity's nearest active memories. */
  choose(input: ChoiceInput): Promise<ChoiceAnswer>;
}
