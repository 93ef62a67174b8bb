import { type ExecutionContext, HttpException, HttpStatus, Injectable } from '@nestjs/common';
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

  /** A 429 in plain words: which budget ran out, for whom, and when to come back. */
  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const response = context.switchToHttp().getResponse<HeaderTarget>();
    const retry = Math.max(1, detail.timeToBlockExpire);
    setResponseHeader(response, 'retry-after', String(retry));
    // The key is `<budget>:<tracker>` (throttler-options.ts).
    const turns = detail.key.startsWith('turns:');
    const who = detail.tracker.startsWith('tenant:') ? 'this API key' : 'this address';
    throw new HttpException(
      {
        statusCode: HttpStatus.TOO_MANY_REQUESTS,
        error: 'Too Many Requests',
        message:
          `Too many ${turns ? 'turns (model calls)' : 'requests'} for ${who}: the limit is ` +
          `${detail.limit} per ${Math.round(detail.ttl / 1000)} s. Try again in ${retry} s (Retry-After).`,
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}
