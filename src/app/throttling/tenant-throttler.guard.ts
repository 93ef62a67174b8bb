import { type ExecutionContext, Injectable } from '@nestjs/common';
import { normalizeIp, ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { REQUEST_TENANT } from '../auth/api-key-authenticator.js';
import { type HeaderTarget, setResponseHeader } from '../http-server/response-header.js';

/**
 * Rate limits per tenant (its API key), or per client address (IPv6 by /64) when the API is open. Every 429 says
 * when to come back in the standard `Retry-After` header, whichever budget ran out (the throttler
 * names it `Retry-After-<budget>` for budgets other than the default).
 */
@Injectable()
export class TenantThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const tenant = request[REQUEST_TENANT];
    if (typeof tenant === 'string') return `tenant:${tenant}`;
    // An IPv6 client is one /64 (it may hold all of them), as the throttler's own tracker has it.
    const ip = request['ip'];
    return `ip:${typeof ip === 'string' ? normalizeIp(ip) : 'unknown'}`;
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const response = context.switchToHttp().getResponse<HeaderTarget>();
    setResponseHeader(response, 'retry-after', String(Math.max(1, detail.timeToBlockExpire)));
    return super.throwThrottlingException(context, detail);
  }
}
