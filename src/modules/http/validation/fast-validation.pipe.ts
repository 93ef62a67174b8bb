import { type ArgumentMetadata, ValidationPipe, type ValidationPipeOptions } from '@nestjs/common';
import { fastBodyCheckOf } from './fast-body.js';

/** Distinct query strings remembered per query class. */
const REMEMBERED = 512;
/** Longer query strings are validated every time. */
const LONGEST = 256;

type Verdict = { fields: Record<string, unknown> } | { error: unknown };

/**
 * Nest's `ValidationPipe` with two shortcuts past class-transformer and class-validator, which on
 * the hot routes cost more than the rest of the request's HTTP layer; every refusal is still
 * class-validator's own 400.
 *
 * - A body whose DTO has a `@FastBody` check that accepts it becomes the DTO as it is (its fields
 *   assigned to an object of the DTO's prototype); any other body is validated in full.
 * - The verdict on a query string is remembered: a query DTO's validation depends only on its class
 *   and the query's values, and clients send the same few queries again and again (`?last=50` on
 *   every poll). Its fields (when all are plain values), or its 400, are kept for up to 512 query
 *   strings per class (the least recently used forgotten first; strings over 256 characters are
 *   not kept).
 *
 * Path parameters are validated every time. DTOs made by a shortcut skip the constructor: such
 * DTOs must hold plain fields, with no constructor logic and no `#private` fields.
 */
export class FastValidationPipe extends ValidationPipe {
  private readonly verdicts = new Map<abstract new () => unknown, Map<string, Verdict>>();

  constructor(options: ValidationPipeOptions) {
    super(options);
  }

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const metatype = metadata.metatype as (abstract new () => unknown) | undefined;
    if (metadata.type === 'body') {
      const check = fastBodyCheckOf(metatype);
      if (check && isPlainObject(value) && check(value))
        return Object.assign(Object.create(metatype!.prototype as object) as object, value);
      return super.transform(value, metadata);
    }
    if (metadata.type !== 'query' || !metatype || !this.toValidate(metadata))
      return super.transform(value, metadata);
    const key = JSON.stringify(value);
    if (key === undefined || key.length > LONGEST) return super.transform(value, metadata);
    let verdicts = this.verdicts.get(metatype);
    if (!verdicts) this.verdicts.set(metatype, (verdicts = new Map()));
    const known = verdicts.get(key);
    if (known) {
      remember(verdicts, key, known); // now the newest
      if ('error' in known) throw known.error;
      return Object.assign(Object.create(metatype.prototype as object) as object, known.fields);
    }
    let result: unknown;
    try {
      result = await super.transform(value, metadata);
    } catch (error) {
      remember(verdicts, key, { error });
      throw error;
    }
    const fields = { ...(result as Record<string, unknown>) };
    if (Object.values(fields).every((field) => field === null || typeof field !== 'object'))
      remember(verdicts, key, { fields });
    return result;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype = Object.getPrototypeOf(value) as unknown;
  return prototype === Object.prototype || prototype === null;
}

/** Keeps `verdict` as the newest, forgetting the least recently used past the bound. */
function remember(verdicts: Map<string, Verdict>, key: string, verdict: Verdict): void {
  if (!verdicts.delete(key) && verdicts.size >= REMEMBERED)
    verdicts.delete(verdicts.keys().next().value!);
  verdicts.set(key, verdict);
}
