import { BadRequestException } from '@nestjs/common';
import { createHash } from 'node:crypto';

/** What an `Idempotency-Key` may be: 1–255 printable ASCII characters. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * The run id an `Idempotency-Key` maps to: a digest of the tenant and the key, so a repeated POST
 * of one tenant names the same run and two tenants' equal keys never meet.
 */
export function runIdOfIdempotencyKey(tenant: string | undefined, key: string): string {
  if (!KEY_PATTERN.test(key))
    throw new BadRequestException('Idempotency-Key must be 1–255 printable ASCII characters');
  const digest = createHash('sha256')
    .update(`${tenant ?? ''}\u0000${key}`)
    .digest('base64url');
  return `idem-${digest}`;
}
