import { ConfigValidationError } from './config-validation.error.js';

/** The process environment, or a test's stand-in for it. */
export type Env = Record<string, string | undefined>;

/** A variable's value, with blank values treated as unset. */
export function readString(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

/** One of a fixed set of values. */
export function readChoice<T extends string>(
  env: Env,
  name: string,
  choices: readonly T[],
  fallback: T,
): T {
  const value = readString(env, name) ?? fallback;
  if (!choices.includes(value as T)) {
    throw new ConfigValidationError(name, `must be one of ${choices.join(', ')}, got "${value}"`);
  }
  return value as T;
}

/** An integer within bounds. */
export function readInteger(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  return readOptionalInteger(env, name, min, max) ?? fallback;
}

/** An integer within bounds, or `undefined` when the variable is unset. */
export function readOptionalInteger(
  env: Env,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!/^-?\d+$/.test(raw) || value < min || value > max) {
    throw new ConfigValidationError(name, `must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return value;
}

const BYTE_UNITS: Record<string, number> = { '': 1, kb: 1024, mb: 1024 * 1024 };

/** A size in bytes: a byte count or `<n>kb` / `<n>mb` (1,024-based, as `bytes` reads them). */
export function readByteSize(
  env: Env,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = readString(env, name);
  if (raw === undefined) return fallback;
  const match = /^(\d+)\s*(kb|mb)?$/i.exec(raw);
  const value = match ? Number(match[1]) * BYTE_UNITS[(match[2] ?? '').toLowerCase()]! : NaN;
  if (!(value >= min && value <= max)) {
    throw new ConfigValidationError(
      name,
      `must be a size from ${min} to ${max} bytes, as a byte count or <n>kb / <n>mb, got "${raw}"`,
    );
  }
  return value;
}

/** `true`/`false` (also `1`/`0`). */
export function readBoolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = readString(env, name)?.toLowerCase();
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigValidationError(name, `must be true or false, got "${raw}"`);
}

/** A URL with one of the given schemes (e.g. `postgres:`). */
export function readUrl(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = readString(env, name);
  if (raw === undefined) return undefined;
  let protocol: string;
  try {
    protocol = new URL(raw).protocol;
  } catch {
    throw new ConfigValidationError(
      name,
      // The value is not echoed: it may hold a password.
      `must be a URL (${schemes.join(', ')}); the value given is not one`,
    );
  }
  if (!schemes.includes(protocol)) {
    throw new ConfigValidationError(
      name,
      `must use one of the schemes ${schemes.join(', ')}, got "${protocol}"`,
    );
  }
  return raw;
}

/** A value that must be present because another setting needs it. */
export function required<T>(value: T | undefined, name: string, because: string): T {
  if (value === undefined) throw new ConfigValidationError(name, `is required ${because}`);
  return value;
}
