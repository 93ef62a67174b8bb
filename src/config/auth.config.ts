import { registerAs } from '@nestjs/config';
import { parseApiKeys, type TenantApiKey } from './api-keys.js';
import { type Env, readString } from './env.js';

/** Who may call the example app's API. */
export interface AuthConfig {
  /** `API_KEYS` (none): each key with its tenant; empty leaves the API open (demo). */
  apiKeys: TenantApiKey[];
}

/** Reads `API_KEYS` (`tenantA:key1,tenantB:key2`; unset or blank: no keys). */
export function loadAuthConfig(env: Env = process.env): AuthConfig {
  const raw = readString(env, 'API_KEYS');
  return { apiKeys: raw === undefined ? [] : parseApiKeys(raw, 'API_KEYS') };
}

/** The `auth` config namespace. */
export const authConfig = registerAs('auth', () => loadAuthConfig());
