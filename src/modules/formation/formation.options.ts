import { tenantOfStoredId } from '../../common/tenant-of.js';
import type { OptionChecker } from '../../common/options/option-checker.js';
import type { LlmAdapter } from '../llm/interfaces/llm.interface.js';
import type { LlmOptions } from '../llm/llm-options.js';
import { type ActiveMemoryCap, DEFAULT_ACTIVE_MEMORY_CAP } from './active-memory-cap.js';
import type { MemoryFormationModel } from './formation-model.interface.js';
import type { EntityProfileOptions } from './profile/profile-schema.js';
import { DEFAULT_FORMATION_SETTINGS, type FormationSettings } from './memory-formation.js';

/**
 * `AgentModule.forRoot({ formation })`: memories formed from each committed turn of a run with an
 * `entityId`, after the turn (never on its latency). `true` for the defaults.
 */
export interface AgentFormationOptions extends Partial<Omit<FormationSettings, 'maxActive'>> {
  /**
   * The most active memories an entity holds (`count`, default 2,000) and bytes of their text
   * (`bytes`, UTF-8, default 512 KiB). When full, a job adds nothing new (its ADDs are NONE, with
   * `overruled` saying why, in the job's record); updates and retractions still apply, and nothing
   * held is evicted: curate (forget) or raise the cap.
   */
  maxActive?: Partial<ActiveMemoryCap>;
  /**
   * Which model extracts and consolidates: `'agent'` (default) the agent's own model, called
   * directly (its kernel filters do not apply); `'plain-statements'` the offline demo model (a few
   * plain English statements, no LLM); any `LlmOptions`, `LlmAdapter` or `{ model: <AI SDK model> }`
   * (a cheaper model, say); or a `MemoryFormationModel` of your own.
   */
  model?: 'agent' | 'plain-statements' | LlmOptions | LlmAdapter | MemoryFormationModel;
  /** Attempts of a job whose model or store fails, 1 s then 4 s… apart (default 3). */
  attempts?: number;
  /** Jobs that run at once in a process (default 2); the others wait their turn. */
  concurrency?: number;
  /**
   * Jobs that may wait in a process (default 1,000): past it, a turn's job is noted as failed
   * (`formation-failures`) instead of queued, so a flood of turns cannot grow memory without bound.
   */
  maxPending?: number;
  /**
   * Formed memories the recall block gives the model before each turn (needs `recall`; default 5,
   * `0` for none): the entity's active memories sharing words with the user's message, with ids.
   */
  recall?: number;
  /**
   * An entity profile (off by default): one JSON document per entity, in the shape of the schema
   * given, that formation keeps up to date with merge patches (each a version, kept) and the recall
   * block gives the model before each turn (needs `recall`).
   */
  profile?: EntityProfileOptions;
  /**
   * How often a conversation's turns are formed: a job per `turns` turns (default 1), or once the
   * conversation has been quiet for `quietMs` after its last turn (default 0 with `turns: 1`, else
   * 60 s) — fewer model calls for chatty conversations. Batches wait in the process.
   */
  every?: Partial<FormationCadence>;
  /**
   * Bounds per tenant, so one tenant's flood of turns cannot hold back another's memories: a freed
   * slot goes to the tenants waiting in turn (round robin), at most `concurrency` of one tenant's
   * jobs run at once (default: `formation.concurrency`, no cap beyond it), and at most `maxPending`
   * of them wait (default: 90 % of `formation.maxPending`, the rest kept for other tenants; past
   * it, the tenant's job is noted as failed, re-runnable). A tenant is `ownerOf(entityId)`: by default the text before the id's
   * first `/`, as `AgentMemoryHttpModule` stores ids (`''` without one).
   */
  tenants?: Partial<FormationTenantBounds>;
}

/** `formation.tenants`, resolved. */
export interface FormationTenantBounds {
  /** A tenant's jobs that run at once in a process. */
  concurrency: number;
  /** A tenant's jobs that may wait in a process (running, waiting for a slot or a retry). */
  maxPending: number;
  /** The tenant an entity belongs to. */
  ownerOf: (entityId: string) => string;
}

/** `formation.every`, resolved: how many turns a job reads, and how long a conversation's quiet lasts. */
export interface FormationCadence {
  /** Turns of a conversation one job reads (default 1: a job per turn). */
  turns: number;
  /**
   * With fewer turns waiting: how long after a conversation's last turn its job starts anyway
   * (default 0 with `turns: 1`, else 60 s).
   */
  quietMs: number;
}

/** Default quiet period when a job reads several turns: 60 s. */
export const DEFAULT_FORMATION_QUIET_MS = 60_000;

/** The agent's `formation` option. */
export type AgentFormationOption = boolean | AgentFormationOptions;

/** The formation settings an option resolves to, `undefined` when formation is off. */
export interface ResolvedFormation {
  model: NonNullable<AgentFormationOptions['model']>;
  settings: FormationSettings;
  attempts: number;
  concurrency: number;
  maxPending: number;
  recall: number;
  profile?: EntityProfileOptions;
  every: FormationCadence;
  tenants: FormationTenantBounds;
}

/** Defaults of the resolved option. */
export const DEFAULT_FORMATION_ATTEMPTS = 3;
export const DEFAULT_FORMED_RECALL = 5;

/** Resolves `formation` (validated already): `undefined` when off. */
export function resolveFormation(
  option: AgentFormationOption | undefined,
): ResolvedFormation | undefined {
  if (!option) return undefined;
  const given = option === true ? {} : option;
  const concurrency = given.concurrency ?? 2;
  const maxPending = given.maxPending ?? 1_000;
  return {
    model: given.model ?? 'agent',
    settings: {
      kinds: given.kinds ?? DEFAULT_FORMATION_SETTINGS.kinds,
      maxCandidates: given.maxCandidates ?? DEFAULT_FORMATION_SETTINGS.maxCandidates,
      neighbours: given.neighbours ?? DEFAULT_FORMATION_SETTINGS.neighbours,
      maxInputTokens: given.maxInputTokens ?? DEFAULT_FORMATION_SETTINGS.maxInputTokens,
      // By default room for the extraction at any `maxInputTokens`, and a consolidation after it.
      maxJobTokens:
        given.maxJobTokens ??
        Math.max(
          DEFAULT_FORMATION_SETTINGS.maxJobTokens!,
          2 * (given.maxInputTokens ?? DEFAULT_FORMATION_SETTINGS.maxInputTokens) + 4_000,
        ),
      maxActive: {
        count: given.maxActive?.count ?? DEFAULT_ACTIVE_MEMORY_CAP.count,
        bytes: given.maxActive?.bytes ?? DEFAULT_ACTIVE_MEMORY_CAP.bytes,
      },
    },
    attempts: given.attempts ?? DEFAULT_FORMATION_ATTEMPTS,
    concurrency,
    maxPending,
    recall: given.recall ?? DEFAULT_FORMED_RECALL,
    ...(given.profile ? { profile: given.profile } : {}),
    every: {
      turns: given.every?.turns ?? 1,
      quietMs:
        given.every?.quietMs ?? ((given.every?.turns ?? 1) > 1 ? DEFAULT_FORMATION_QUIET_MS : 0),
    },
    tenants: {
      concurrency: Math.min(given.tenants?.concurrency ?? concurrency, concurrency),
      maxPending: Math.min(
        given.tenants?.maxPending ?? Math.max(1, maxPending - Math.ceil(maxPending / 10)),
        maxPending,
      ),
      ownerOf: given.tenants?.ownerOf ?? tenantOfStoredId,
    },
  };
}

/** Whether a value is a formation model of the app's own (it has `extract` and `choose`). */
export function isFormationModel(value: unknown): value is MemoryFormationModel {
  const model = value as Partial<MemoryFormationModel> | null;
  return (
    typeof model === 'object' &&
    model !== null &&
    typeof model.extract === 'function' &&
    typeof model.choose === 'function'
  );
}

/** Checks the `formation` option at bootstrap, naming the field at fault. */
export function checkFormation(check: OptionChecker, value: unknown): void {
  if (value === undefined || typeof value === 'boolean') return;
  const given = check.object(value, 'formation');
  const nested = check.nested('formation');
  nested.keys(given, [
    'model',
    'kinds',
    'maxCandidates',
    'neighbours',
    'maxInputTokens',
    'maxJobTokens',
    'attempts',
    'concurrency',
    'maxPending',
    'recall',
    'maxActive',
    'profile',
    'every',
    'tenants',
  ]);
  nested.integer('maxInputTokens', given.maxInputTokens, 100, 1_000_000);
  nested.integer('maxJobTokens', given.maxJobTokens, 1_000, 10_000_000);
  // The extraction alone (the turn, a quarter more of context, the instructions) must fit.
  const input =
    (given.maxInputTokens as number | undefined) ?? DEFAULT_FORMATION_SETTINGS.maxInputTokens;
  if (given.maxJobTokens !== undefined && (given.maxJobTokens as number) < 1.25 * input + 2_000)
    nested.fail(
      'maxJobTokens',
      `must leave room for the extraction: at least 1.25 × maxInputTokens + 2,000 (${Math.ceil(1.25 * input + 2_000)})`,
    );
  nested.integer('concurrency', given.concurrency, 1, 64);
  nested.integer('maxPending', given.maxPending, 1, 1_000_000);
  nested.integer('maxCandidates', given.maxCandidates, 1, 100);
  nested.integer('neighbours', given.neighbours, 1, 50);
  nested.integer('attempts', given.attempts, 1, 10);
  nested.integer('recall', given.recall, 0, 100);
  if (given.maxActive !== undefined) {
    const cap = nested.object(given.maxActive, 'maxActive');
    const capCheck = nested.nested('maxActive');
    capCheck.keys(cap, ['count', 'bytes']);
    capCheck.integer('count', cap.count, 1, 1_000_000);
    capCheck.integer('bytes', cap.bytes, 2_048, 1_073_741_824);
  }
  if (given.profile !== undefined) {
    const profile = nested.object(given.profile, 'profile');
    const profileCheck = nested.nested('profile');
    profileCheck.keys(profile, ['schema', 'maxBytes', 'maxPromptTokens']);
    profileCheck.object(profile.schema, 'schema');
    profileCheck.integer('maxBytes', profile.maxBytes, 256, 65_536);
    profileCheck.integer('maxPromptTokens', profile.maxPromptTokens, 1, 100_000);
  }
  if (given.every !== undefined) {
    const every = nested.object(given.every, 'every');
    const everyCheck = nested.nested('every');
    everyCheck.keys(every, ['turns', 'quietMs']);
    everyCheck.integer('turns', every.turns, 1, 1_000);
    everyCheck.integer('quietMs', every.quietMs, 0, 86_400_000);
  }
  if (given.tenants !== undefined) {
    const tenants = nested.object(given.tenants, 'tenants');
    const tenantCheck = nested.nested('tenants');
    tenantCheck.keys(tenants, ['concurrency', 'maxPending', 'ownerOf']);
    tenantCheck.integer('concurrency', tenants.concurrency, 1, 64);
    tenantCheck.integer('maxPending', tenants.maxPending, 1, 1_000_000);
    if (tenants.ownerOf !== undefined && typeof tenants.ownerOf !== 'function')
      tenantCheck.fail('ownerOf', 'must be a function of an entity id returning its tenant');
  }
  const { kinds, model } = given;
  if (
    kinds !== undefined &&
    !(
      Array.isArray(kinds) &&
      kinds.length > 0 &&
      kinds.every((kind) => typeof kind === 'string' && KIND.test(kind))
    )
  )
    nested.fail('kinds', 'must be a non-empty array of names (a-z, 0-9, _ or -, at most 32)');
  if (
    model !== undefined &&
    model !== 'agent' &&
    model !== 'plain-statements' &&
    (typeof model !== 'object' || model === null)
  )
    nested.fail(
      'model',
      "must be 'agent', 'plain-statements', LLM options, an LlmAdapter or a MemoryFormationModel",
    );
}

const KIND = /^[a-z][a-z0-9_-]{0,31}$/;
