import {
  type CanActivate,
  type ExecutionContext,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeyAuthenticator, type AuthenticatedRequest } from './api-key-authenticator.js';
import { AuthFailureLimiter, tooManyFailures } from './auth-failure-limiter.js';
import { bearerToken } from './bearer-token.js';
import { IS_PUBLIC } from './public.decorator.js';

/**
 * Bearer auth on every route but those marked `@Public()` (401 `{ statusCode, error, message }`).
 * Requests that present a key are counted per client address: past `AUTH_FAILURES_MAX` failures a
 * minute, the address gets 429 with `Retry-After` whatever key it sends.
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
    // No key at all (a page before its key is typed): a plain 401, not a guess.
    if (bearerToken(request.headers) === undefined) {
      this.authenticator.authenticate(request);
      return true;
    }
    const attempt = await this.failures.attempt(request.ip, http.getResponse());
    if (attempt.refused) throw tooManyFailures(attempt.refused);
    try {
      this.authenticator.authenticate(request);
    } catch (error) {
      attempt.settle(!(error instanceof UnauthorizedException));
      throw error;
    }
    attempt.settle(true);
    return true;
  }
}
