import { registerAs } from '@nestjs/config';
import { parseApiKeys, type TenantApiKey } from './api-keys.js';
import { ConfigValidationError } from './config-validation.error.js';
import { type Env, readChoice, readString } from './env.js';

/** Who may call the example app's API. */
export interface AuthConfig {
  /** `API_KEYS` (none): each key with its tenant; empty leaves the API open (demo). */
  apiKeys: TenantApiKey[];
  /**
   * `ADMIN_API_KEY` (none): the key of the queue board (`/admin/queues`), which shows every
   * tenant's jobs. With `API_KEYS` set and no admin key, the board is not served.
   */
  adminKey?: string;
  /**
   * `API_DOCS` (`public`): who may read the OpenAPI docs (`/docs`, `/docs-json`, `/docs-yaml`).
   * `public`: anyone — they describe the routes and hold no tenant data; every call made from
   * Swagger UI still needs a key (its **Authorize** button). `key`: a key of `API_KEYS` (a browser
   * cannot send one to open the page). `off`: not served.
   */
  docs: ApiDocsAccess;
}

/** Who may read the OpenAPI docs (`API_DOCS`). */
export type ApiDocsAccess = 'public' | 'key' | 'off';

/** Reads `API_KEYS` (`tenantA:key1,tenantB:key2`; unset or blank: no keys), `ADMIN_API_KEY` and `API_DOCS`. */
export function loadAuthConfig(env: Env = process.env): AuthConfig {
  const raw = readString(env, 'API_KEYS');
  const apiKeys = raw === undefined ? [] : parseApiKeys(raw, 'API_KEYS');
  const adminKey = readString(env, 'ADMIN_API_KEY');
  if (adminKey !== undefined && (adminKey.length < 16 || /\s/.test(adminKey)))
    throw new ConfigValidationError(
      'ADMIN_API_KEY',
      'must be at least 16 characters without spaces (the value is not shown)',
    );
  if (adminKey !== undefined && apiKeys.some((entry) => entry.key === adminKey))
    throw new ConfigValidationError('ADMIN_API_KEY', 'must differ from every key of API_KEYS');
  const docs = readChoice(env, 'API_DOCS', ['public', 'key', 'off'] as const, 'public');
  return { apiKeys, docs, ...(adminKey !== undefined ? { adminKey } : {}) };
}

/** The `auth` config namespace. */
export const authConfig = registerAs('auth', () => loadAuthConfig());
