import { Inject, Injectable, UnauthorizedException } from '@nestjs/common';
import type { ConfigType } from '@nestjs/config';
import { timingSafeEqual } from 'node:crypto';
import { authConfig } from '../../config/auth.config.js';
import { bearerToken, keyDigest } from './bearer-token.js';

/** The 401's message for a request without a key, on the API and the routes served beside it. */
export const MISSING_BEARER_TOKEN = 'Missing bearer token (Authorization: Bearer <key>)';
/** The 401's message for a key that is no tenant's. */
export const INVALID_API_KEY = 'Invalid API key';

/** Where the authenticated tenant is kept on the request. */
export const REQUEST_TENANT = 'agentMemoryTenant';

/** A request as authentication reads and marks it. */
export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  [REQUEST_TENANT]?: string;
}

/**
 * Checks `Authorization: Bearer <key>` against `API_KEYS` and names the key's tenant. Keys are
 * compared as SHA-256 digests with `timingSafeEqual`, every key every time, so neither a key's
 * length nor its position leaks through timing. Without `API_KEYS` the API is open.
 */
@Injectable()
export class ApiKeyAuthenticator {
  private readonly keys: Array<{ tenant: string; digest: Buffer }>;

  constructor(@Inject(authConfig.KEY) config: ConfigType<typeof authConfig>) {
    this.keys = config.apiKeys.map(({ tenant, key }) => ({ tenant, digest: keyDigest(key) }));
  }

  /** Whether requests need a key. */
  get enabled(): boolean {
    return this.keys.length > 0;
  }

  /** The request's tenant (also kept on the request), or 401; `undefined` when the API is open. */
  authenticate(request: AuthenticatedRequest): string | undefined {
    if (!this.enabled) return undefined;
    const token = bearerToken(request.headers);
    if (token === undefined) throw new UnauthorizedException(MISSING_BEARER_TOKEN);
    const given = keyDigest(token);
    let tenant: string | undefined;
    for (const key of this.keys) if (timingSafeEqual(key.digest, given)) tenant ??= key.tenant;
    if (tenant === undefined) throw new UnauthorizedException(INVALID_API_KEY);
    request[REQUEST_TENANT] = tenant;
    return tenant;
  }
}
