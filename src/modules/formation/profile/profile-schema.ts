import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { InvalidModuleOptionsError } from '../../../common/errors/invalid-module-options.error.js';
import { isJsonObject } from './merge-patch.js';

/** `formation.profile`: the entity profile formation keeps, and how much of it there may be. */
export interface EntityProfileOptions {
  /**
   * The profile's JSON Schema (an object schema, draft-07, or 2020-12 when its `$schema` says so).
   * With zod 4: `z.toJSONSchema(Profile.partial())` — members optional, since a profile fills up
   * turn by turn. Every version of a profile satisfies it: a patch whose result does not is refused.
   */
  schema: Record<string, unknown>;
  /**
   * Most bytes of the document as UTF-8 JSON, and of one patch (default 16 KiB, 256 B – 64 KiB: a
   * version is stored with its patch, within the long-term store's `maxValueBytes`).
   */
  maxBytes?: number;
  /** Most tokens the profile takes in the turn's recall block, about 4 characters each (default 500). */
  maxPromptTokens?: number;
}

/** Default `formation.profile.maxBytes`: 16 KiB. */
export const DEFAULT_PROFILE_MAX_BYTES = 16 * 1024;
/** Default `formation.profile.maxPromptTokens`: 500. */
export const DEFAULT_PROFILE_PROMPT_TOKENS = 500;

/** A profile schema compiled once, with the size limit: what checks each new version. */
export class ProfileSchema {
  readonly maxBytes: number;
  readonly maxPromptTokens: number;
  private readonly validate: ValidateFunction;

  constructor(readonly options: EntityProfileOptions) {
    const { schema } = options;
    if (!isJsonObject(schema) || (schema['type'] !== undefined && schema['type'] !== 'object'))
      throw new InvalidModuleOptionsError(
        'AgentModule',
        'formation.profile.schema',
        'must be a JSON Schema of an object (with zod 4: z.toJSONSchema(schema))',
      );
    try {
      // Draft 2020-12 (what zod 4's z.toJSONSchema writes) when the schema says so, else draft-07.
      const ajv = String(schema['$schema'] ?? '').includes('2020-12')
        ? new Ajv2020({ allErrors: true, strict: false })
        : new Ajv({ allErrors: true, strict: false });
      this.validate = ajv.compile(schema);
    } catch (error) {
      throw new InvalidModuleOptionsError(
        'AgentModule',
        'formation.profile.schema',
        `is not a JSON Schema Ajv can compile: ${(error as Error).message}`,
      );
    }
    this.maxBytes = options.maxBytes ?? DEFAULT_PROFILE_MAX_BYTES;
    this.maxPromptTokens = options.maxPromptTokens ?? DEFAULT_PROFILE_PROMPT_TOKENS;
  }

  /** What is wrong with a document (its first problems, named by path), or `undefined`. */
  check(document: unknown): string | undefined {
    const bytes = Buffer.byteLength(JSON.stringify(document));
    if (bytes > this.maxBytes)
      return `the profile would take ${bytes} bytes, more than formation.profile.maxBytes (${this.maxBytes})`;
    if (this.validate(document)) return undefined;
    const problems = (this.validate.errors ?? []).slice(0, 3).map(describeProblem);
    return `the profile would not fit its schema: ${problems.join('; ')}`;
  }
}

/** One of Ajv's errors as a phrase, naming the member a schema has no room for. */
function describeProblem(error: ErrorObject): string {
  const where = error.instancePath || '(the profile)';
  const what = `${where} ${error.message ?? 'is invalid'}`;
  // `additionalProperties: false`, or 2020-12's `unevaluatedProperties: false`.
  const extra: unknown = error.params['additionalProperty'] ?? error.params['unevaluatedProperty'];
  return typeof extra === 'string'
    ? `${what} (${JSON.stringify(extra)} is not in the schema)`
    : what;
}
