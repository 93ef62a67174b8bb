import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import { TENANT_SCOPE_KEY } from './tenant-scope.guard.js';
import type { TenantScope } from './tenant-scope.js';

/** The request's `TenantScope`, as `TenantScopeGuard` resolved it. */
export const RequestTenant = createParamDecorator(
  (_data: unknown, context: ExecutionContext): TenantScope =>
    context.switchToHttp().getRequest<Record<symbol, TenantScope>>()[TENANT_SCOPE_KEY]!,
);
