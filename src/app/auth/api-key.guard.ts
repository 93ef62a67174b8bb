import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiKeyAuthenticator, type AuthenticatedRequest } from './api-key-authenticator.js';
import { IS_PUBLIC } from './public.decorator.js';

/** Bearer auth on every route but those marked `@Public()` (401 `{ statusCode, error, message }`). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly authenticator: ApiKeyAuthenticator,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const isPublic = this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    this.authenticator.authenticate(context.switchToHttp().getRequest<AuthenticatedRequest>());
    return true;
  }
}
