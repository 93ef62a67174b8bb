import {
  type CallHandler,
  type ExecutionContext,
  Inject,
  Injectable,
  type NestInterceptor,
} from '@nestjs/common';
import type { Observable } from 'rxjs';
import { TENANT_RESOLVER } from '../http.constants.js';
import type { TenantRequest, TenantResolver } from './tenant-resolver.js';
import { TenantScope } from './tenant-scope.js';

/** Where the request's scope is kept for `@RequestTenant()`. */
export const TENANT_SCOPE_KEY = Symbol('agentMemoryTenantScope');

/** Resolves the request's tenant once, before the handler, for `@RequestTenant()`. */
@Injectable()
export class TenantScopeInterceptor implements NestInterceptor {
  constructor(@Inject(TENANT_RESOLVER) private readonly resolver: TenantResolver) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const request = context.switchToHttp().getRequest<TenantRequest>();
    const tenant = await this.resolver.resolve(request);
    (request as Record<symbol, unknown>)[TENANT_SCOPE_KEY] = new TenantScope(tenant);
    return next.handle();
  }
}
