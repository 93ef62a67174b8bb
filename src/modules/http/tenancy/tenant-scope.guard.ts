import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { TENANT_RESOLVER } from '../http.constants.js';
import type { TenantRequest, TenantResolver } from './tenant-resolver.js';
import { TenantScope } from './tenant-scope.js';

/** Where the request's scope is kept for `@RequestTenant()`. */
export const TENANT_SCOPE_KEY = Symbol('agentMemoryTenantScope');

/**
 * Resolves the request's tenant once, after the app's own guards (authentication) and before the
 * pipes and the handler, for `@RequestTenant()`. A guard rather than an interceptor: it lets every
 * request through (or throws the resolver's error), and with no interceptor on the routes Nest
 * calls the handler directly instead of through an RxJS pipeline.
 */
@Injectable()
export class TenantScopeGuard implements CanActivate {
  constructor(@Inject(TENANT_RESOLVER) private readonly resolver: TenantResolver) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<TenantRequest>();
    const tenant = await this.resolver.resolve(request);
    (request as Record<symbol, unknown>)[TENANT_SCOPE_KEY] = new TenantScope(tenant);
    return true;
  }
}
