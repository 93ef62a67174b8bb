import { createHash } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header, or `undefined`. */
export function bearerToken(
  headers: Record<string, string | string[] | undefined>,
): string | undefined {
  const header = headers['authorization'];
  return typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
}

/**
 * A key's SHA-256 digest: keys are compared as digests with `timingSafeEqual`, so neither their
 * length nor their content leaks through timing.
 */
export function keyDigest(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}
