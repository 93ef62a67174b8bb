import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { REQUEST_TENANT } from '../auth/api-key-authenticator.js';

/**
 * Rate limits per tenant (its API key), or per client address when the API is open. Every 429 says
 * when to come back in the standard `Retry-After` header, whichever budget ran out (the throttler
 * names it `Retry-After-<budget>` for budgets other than the default).
 */
@Injectable()
export class TenantThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const tenant = request[REQUEST_TENANT];
    return typeof tenant === 'string' ? `tenant:${tenant}` : `ip:${String(request['ip'])}`;
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const response = context
      .switchToHttp()
      .getResponse<{ setHeader(n: string, v: string): void }>();
    response.setHeader('retry-after', String(Math.max(1, detail.timeToBlockExpire)));
    return super.throwThrottlingException(context, detail);
  }
}
