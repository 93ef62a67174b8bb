import type { TenantRequest, TenantResolver } from 'nest-agent-memory/http';
import { REQUEST_TENANT } from './api-key-authenticator.js';

/** The tenant of the request's API key (set by `ApiKeyGuard`); none when the API is open. */
export class ApiKeyTenantResolver implements TenantResolver {
  resolve(request: TenantRequest): string | undefined {
    return request[REQUEST_TENANT] as string | undefined;
  }
}
