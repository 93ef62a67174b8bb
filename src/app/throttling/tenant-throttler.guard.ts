import { Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { REQUEST_TENANT } from '../auth/api-key-authenticator.js';

/** Rate limits per tenant (its API key), or per client address when the API is open. */
@Injectable()
export class TenantThrottlerGuard extends ThrottlerGuard {
  protected override async getTracker(request: Record<string, unknown>): Promise<string> {
    const tenant = request[REQUEST_TENANT];
    return typeof tenant === 'string' ? `tenant:${tenant}` : `ip:${String(request['ip'])}`;
  }
}
