import { ConfigValidationError } from './config-validation.error.js';

/** One API key and the tenant it authenticates. */
export interface TenantApiKey {
  tenant: string;
  key: string;
}

const TENANT = /^[A-Za-z0-9_.-]{1,50}$/;

/** The shortest API key accepted (tenant keys and the admin key alike). */
export const MIN_KEY_LENGTH = 16;

/**
 * Parses `tenantA:key1,tenantB:key2` (a tenant may hold several keys; a key belongs to one
 * tenant). Errors name the variable and the entry's position, never a key or a tenant (an entry
 * without `:` may be a bare key).
 */
export function parseApiKeys(raw: string, variable: string): TenantApiKey[] {
  const fail = (problem: string): never => {
    throw new ConfigValidationError(variable, `${problem} (expected tenant:key,tenant:key,…)`);
  };
  const firstEntryOfKey = new Map<string, number>();
  return raw.split(',').map((text, index) => {
    const entry = text.trim();
    const at = `entry ${index + 1}`;
    const colon = entry.indexOf(':');
    if (entry === '') return fail(`${at} is empty`);
    if (colon < 0) return fail(`${at} is not tenant:key`);
    const tenant = entry.slice(0, colon);
    const key = entry.slice(colon + 1);
    if (!TENANT.test(tenant))
      fail(`${at}: the tenant id must be 1 to 50 characters of A-Z, a-z, 0-9, _, . or -`);
    if (key === '') fail(`${at}: the key is empty`);
    if (/\s/.test(key)) fail(`${at}: the key holds whitespace`);
    // A short key falls to guessing; the admin key has the same floor.
    if (key.length < MIN_KEY_LENGTH)
      fail(`${at}: the key must be at least ${MIN_KEY_LENGTH} characters`);
    const first = firstEntryOfKey.get(key);
    if (first !== undefined) fail(`${at} repeats the key of entry ${first}`);
    firstEntryOfKey.set(key, index + 1);
    return { tenant, key };
  });
}
