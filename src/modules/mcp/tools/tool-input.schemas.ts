import * as z from 'zod/v4';
import { HTTP_ID_PATTERN } from '../../http/tenancy/tenant-scope.js';
import { MAX_JSON_DEPTH, shapeProblem } from '../../http/validation/body-shape.pipe.js';

const ID_RULE = '1–200 characters of letters, digits and _ - . : @';

/** An entity id as the REST API takes it (tenant-scoped before use). */
export const entityIdInput = z
  .string()
  .regex(HTTP_ID_PATTERN, `entityId must be ${ID_RULE}`)
  .describe(`The entity (a user, an account…) whose long-term memory it is: ${ID_RULE}`);

/** A conversation id as the REST API takes it (tenant-scoped before use). */
export const conversationIdInput = z
  .string()
  .regex(HTTP_ID_PATTERN, `conversationId must be ${ID_RULE}`)
  .describe(`The conversation: ${ID_RULE}`);

/** The words a recall or a search looks for, as the REST API's `q` takes them. */
export const queryInput = z
  .string()
  .min(1, 'query must not be empty')
  .max(2_000)
  .describe('What to look for (at most 2,000 characters; the first 32 distinct words count)');

/** A record's or entry's key (the store checks its length and characters). */
export const keyInput = z.string().min(1, 'key must not be empty').describe('The key');

/**
 * Any JSON value but `null`, with the REST API's body checks: nested at most 100 levels, and no
 * `__proto__`, `constructor` or `prototype` key at any level.
 */
export const jsonValueInput = z
  .unknown()
  .superRefine((value, context) => {
    if (value === undefined || value === null)
      return context.addIssue({
        code: 'custom',
        message: 'value is required: any JSON value but null',
      });
    const problem = shapeProblem(value, MAX_JSON_DEPTH);
    if (problem) context.addIssue({ code: 'custom', message: problem.replace(/^body/, 'value') });
  })
  .describe('Any JSON value but null');

/** A sequence number (`seq`) of a seq-guarded write. */
export const seqInput = z.int().min(0);
