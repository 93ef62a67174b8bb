import { describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { runIdOfIdempotencyKey } from '../../src/modules/http/turns/idempotency-key.js';

describe('the run id of an Idempotency-Key (as docs/http-api.md says)', () => {
  it('is idem- and the SHA-256 of tenant and key: the key cannot be read back, tenants never meet', () => {
    const key = 'order-4711-secret-ish';
    const id = runIdOfIdempotencyKey('acme', key);
    expect(id).toBe(`idem-${createHash('sha256').update(`acme\u0000${key}`).digest('base64url')}`);
    expect(id).not.toContain(key);
    expect(runIdOfIdempotencyKey('acme', key)).toBe(id);
    expect(runIdOfIdempotencyKey('globex', key)).not.toBe(id);
    expect(() => runIdOfIdempotencyKey('acme', 'has space')).toThrow('printable ASCII');
  });
});
