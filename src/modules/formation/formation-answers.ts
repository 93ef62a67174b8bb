import { Ajv, type ValidateFunction } from 'ajv';
import type { ConsolidationChoice, MemoryCandidate } from './formed-memory.interface.js';

/** The most characters a memory's text may have. */
export const MAX_MEMORY_TEXT = 500;

/** A formation model answered something its schema refuses: the job retries, then fails. */
export class FormationAnswerError extends Error {
  constructor(step: string, problems: string) {
    super(`The formation model's ${step} answer is invalid: ${problems}`);
    this.name = 'FormationAnswerError';
  }
}

/**
 * The JSON Schema of the extraction tool's arguments, for the given kinds; with `profile`, a merge
 * patch of the entity's profile may come with the memories.
 */
export function extractionSchema(
  kinds: readonly string[],
  profile = false,
): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['memories'],
    properties: {
      ...(profile
        ? {
            profile: {
              type: ['object', 'null'],
              description:
                'A JSON Merge Patch (RFC 7396) of the user profile: only the members the new messages state, null for a member the user took back; omit it when nothing changes',
            },
          }
        : {}),
      memories: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['text', 'kind', 'messageIds'],
          properties: {
            text: { type: 'string', minLength: 1, maxLength: MAX_MEMORY_TEXT },
            kind: { type: 'string', enum: [...kinds] },
            messageIds: { type: 'array', minItems: 1, items: { type: 'string' } },
            validFrom: {
              type: ['string', 'null'],
              description: 'ISO 8601 date the statement holds from, when the user said one',
            },
            retraction: { type: 'boolean' },
          },
        },
      },
    },
  };
}

/** The JSON Schema of the consolidation tool's arguments. */
export const CHOICE_SCHEMA: Record<string, unknown> = {
  type: 'object',
  additionalProperties: false,
  required: ['choices'],
  properties: {
    choices: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['candidate', 'op'],
        properties: {
          candidate: { type: 'integer', minimum: 0 },
          op: { type: 'string', enum: ['ADD', 'UPDATE', 'INVALIDATE', 'NONE'] },
          target: { type: 'string' },
        },
      },
    },
  },
};

const ajv = new Ajv({ allErrors: true, strict: false });
const validators = new Map<string, ValidateFunction>();

function validate(step: string, schema: Record<string, unknown>, text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new FormationAnswerError(step, 'not JSON');
  }
  const key = JSON.stringify(schema);
  let check = validators.get(key);
  if (!check) validators.set(key, (check = ajv.compile(schema)));
  if (!check(value))
    throw new FormationAnswerError(
      step,
      (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; '),
    );
  return value;
}

/**
 * The candidates in an extraction answer (JSON text), checked against its schema, and with
 * `profile` the profile patch it holds (an object with members, else none).
 */
export function extractionOf(
  text: string,
  kinds: readonly string[],
  profile = false,
): { candidates: MemoryCandidate[]; profilePatch?: Record<string, unknown> } {
  const answer = validate('extraction', extractionSchema(kinds, profile), text) as {
    profile?: Record<string, unknown> | null;
  };
  const patch = answer.profile;
  return {
    candidates: candidatesIn(answer),
    ...(profile && patch && Object.keys(patch).length > 0 ? { profilePatch: patch } : {}),
  };
}

function candidatesIn(answer: unknown): MemoryCandidate[] {
  const { memories } = answer as {
    memories: Array<{
      text: string;
      kind: string;
      messageIds: string[];
      validFrom?: string | null;
      retraction?: boolean;
    }>;
  };
  return memories.map((memory) => {
    const validFrom = memory.validFrom ? Date.parse(memory.validFrom) : Number.NaN;
    return {
      text: memory.text.trim(),
      kind: memory.kind,
      messageIds: memory.messageIds,
      ...(Number.isFinite(validFrom) ? { validFrom } : {}),
      ...(memory.retraction ? { retraction: true } : {}),
    };
  });
}

/** The choices in a consolidation answer (JSON text), by candidate position; missing ones are NONE. */
export function choicesOf(text: string, candidates: number): ConsolidationChoice[] {
  const { choices } = validate('consolidation', CHOICE_SCHEMA, text) as {
    choices: Array<{ candidate: number; op: ConsolidationChoice['op']; target?: string }>;
  };
  const chosen: ConsolidationChoice[] = Array.from({ length: candidates }, () => ({ op: 'NONE' }));
  for (const choice of choices) {
    if (choice.candidate >= candidates) continue;
    if (choice.op === 'ADD' || choice.op === 'NONE') chosen[choice.candidate] = { op: choice.op };
    else if (choice.target) chosen[choice.candidate] = { op: choice.op, target: choice.target };
  }
  return chosen;
}
