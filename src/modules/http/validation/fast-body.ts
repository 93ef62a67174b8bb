/**
 * A body's fast check: `true` only for a value that the DTO's class-validator rules accept as it
 * is (class-transformer would give the same fields). Anything it is unsure of must be `false`, and
 * then the full validation runs — so a refusal's 400 is always class-validator's own.
 */
export type FastBodyCheck = (body: Record<string, unknown>) => boolean;

const FAST_BODY = Symbol('agentMemoryFastBody');

/**
 * Gives a body DTO a fast check for its common shape (a turn's text message, a working-memory
 * value), which `FastValidationPipe` tries before class-transformer and class-validator: on the
 * hot routes those two cost more than the rest of the request's HTTP layer. A test checks, on
 * generated bodies, that every body the check accepts is accepted by the full validation with the
 * same fields.
 */
export function FastBody(check: FastBodyCheck): ClassDecorator {
  return (target) => {
    (target as unknown as { [FAST_BODY]: FastBodyCheck })[FAST_BODY] = check;
  };
}

/** The fast check a DTO class was given, if any. */
export function fastBodyCheckOf(metatype: unknown): FastBodyCheck | undefined {
  return typeof metatype === 'function'
    ? (metatype as { [FAST_BODY]?: FastBodyCheck })[FAST_BODY]
    : undefined;
}

/** Whether `body` is a plain object whose own keys are all in `allowed`. */
export function hasOnlyKeys(body: Record<string, unknown>, allowed: readonly string[]): boolean {
  for (const key in body) if (!allowed.includes(key)) return false;
  return true;
}
