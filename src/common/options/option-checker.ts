import { InvalidModuleOptionsError } from '../errors/invalid-module-options.error.js';
import { assertKnownOptionKeys } from './known-option-keys.js';

/**
 * Bootstrap checks of a module's options, each throwing `InvalidModuleOptionsError` that names the
 * module and the option. An `undefined` value passes every check but `required` (options are
 * optional unless a module says otherwise). Values are never echoed for strings that may be
 * secrets; numbers and booleans are.
 */
export class OptionChecker {
  /**
   * @param moduleName named in every error, e.g. `WorkingMemoryModule`
   * @param path prefix of option names, e.g. `queue.` for the agent's queue options
   */
  constructor(
    readonly moduleName: string,
    readonly path = '',
  ) {}

  /** A checker for the options nested under `option` (e.g. `runs` → `runs.backend`). */
  nested(option: string): OptionChecker {
    return new OptionChecker(this.moduleName, `${this.path}${option}.`);
  }

  fail(option: string, problem: string): never {
    throw new InvalidModuleOptionsError(this.moduleName, `${this.path}${option}`, problem);
  }

  /** The value must be a plain object (not null, not an array); returns it typed as a record. */
  object(value: unknown, option = 'options'): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      this.fail(option, `must be an object, got ${describe(value)}`);
    return value as Record<string, unknown>;
  }

  /** Every key of `options` must be one of `known` ("did you mean …?" otherwise). */
  keys(options: object, known: readonly string[]): void {
    assertKnownOptionKeys(this.moduleName, options, known, this.path);
  }

  required(option: string, value: unknown): void {
    if (value === undefined) this.fail(option, 'is required');
  }

  /** An integer in [min, max] (a safe integer). */
  integer(option: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): void {
    if (value === undefined) return;
    if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max)
      this.fail(option, `must be an integer from ${min}${rangeEnd(max)}, got ${describe(value)}`);
  }

  /** A finite number with `min < value <= max` (or `min <= value` when `inclusiveMin`). */
  number(
    option: string,
    value: unknown,
    range: { min: number; max: number; inclusiveMin?: boolean },
  ): void {
    if (value === undefined) return;
    const n = value as number;
    const aboveMin = range.inclusiveMin ? n >= range.min : n > range.min;
    if (typeof value !== 'number' || !Number.isFinite(n) || !aboveMin || n > range.max)
      this.fail(
        option,
        `must be a number ${range.inclusiveMin ? '≥' : '>'} ${range.min} and ≤ ${range.max}, got ${describe(value)}`,
      );
  }

  boolean(option: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'boolean')
      this.fail(option, `must be true or false, got ${describe(value)}`);
  }

  /** A string (non-empty unless `allowEmpty`). Its value is never shown: it may be a secret. */
  string(option: string, value: unknown, allowEmpty = false): void {
    if (value === undefined) return;
    if (typeof value !== 'string' || (!allowEmpty && value.length === 0))
      this.fail(
        option,
        `must be a non-empty string, got ${typeof value === 'string' ? 'an empty string' : typeof value}`,
      );
  }

  function(option: string, value: unknown): void {
    if (value !== undefined && typeof value !== 'function')
      this.fail(option, `must be a function, got ${describe(value)}`);
  }

  /** One of `allowed` (compared with `===`). */
  oneOf(option: string, value: unknown, allowed: readonly unknown[]): void {
    if (value !== undefined && !allowed.includes(value))
      this.fail(
        option,
        `must be ${allowed.map((a) => JSON.stringify(a)).join(', ')}, got ${describe(value)}`,
      );
  }

  /** A sweep setting: `false`, or `{ intervalMs?, batchSize? }` with positive integers. */
  sweep(option: string, value: unknown): void {
    if (value === undefined || value === false) return;
    const sweep = this.object(value, option);
    const nested = this.nested(option);
    nested.keys(sweep, ['intervalMs', 'batchSize']);
    nested.integer('intervalMs', sweep.intervalMs, 1);
    nested.integer('batchSize', sweep.batchSize, 1);
  }
}

function rangeEnd(max: number): string {
  return max === Number.MAX_SAFE_INTEGER ? ' up' : ` to ${max}`;
}

/** A short, secret-free description of a bad value for an error message. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'number':
    case 'boolean':
    case 'bigint':
      return String(value);
    case 'string':
      return value.length <= 40 && !/[:/@]/.test(value) ? JSON.stringify(value) : 'a string';
    default:
      return typeof value;
  }
}
