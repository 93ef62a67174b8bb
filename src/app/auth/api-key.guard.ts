import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeyAuthenticator, type AuthenticatedRequest } from './api-key-authenticator.js';
import { AuthFailureLimiter, tooManyFailures } from './auth-failure-limiter.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Bearer auth on every route but those marked `@Public()` (401 `{ statusCode, error, message }`).
 * Failed attempts are counted per client address: past `AUTH_FAILURES_MAX` a minute, the address
 * gets 429 with `Retry-After` whatever key it sends.
 */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly reflector: Reflector,
    private readonly failures: AuthFailureLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic || !this.authenticator.enabled) return true;
    const http = context.switchToHttp();
    const request = http.getRequest<AuthenticatedRequest & { ip?: string }>();
    const refusal = await this.failures.refusal(request.ip, http.getResponse());
    if (refusal) throw tooManyFailures(refusal);
    try {
      this.authenticator.authenticate(request);
    } catch (error) {
      if (error instanceof UnauthorizedException) await this.failures.recordFailure(request.ip);
      throw error;
    }
    return true;
  }
}
