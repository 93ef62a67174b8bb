import { timingSafeEqual } from 'node:crypto';
import { bearerToken, keyDigest } from '../auth/bearer-token.js';
import type { AuthFailureLimiter } from '../auth/auth-failure-limiter.js';

/** The Express request and response the auth middlewares use. */
export interface MiddlewareRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
}
export interface MiddlewareResponse {
  setHeader(name: string, value: string): unknown;
  status(code: number): { json(body: unknown): void };
}

/**
 * Auth for routes Express serves outside Nest's guards: `check` says whether the request may pass.
 * Failed attempts count against the client address like the API's (`AUTH_FAILURES_MAX`), and a
 * blocked address gets 429 with `Retry-After`; `refused` is the 401's message.
 */
export function guardedMiddleware(
  check: (request: MiddlewareRequest) => boolean,
  refused: string,
  failures: AuthFailureLimiter,
) {
  return (
    request: MiddlewareRequest,
    response: MiddlewareResponse,
    next: (error?: unknown) => void,
  ): void => {
    void (async () => {
      const refusal = await failures.refusal(request.ip, response);
      if (refusal) return response.status(429).json(refusal);
      if (check(request)) return next();
      await failures.recordFailure(request.ip);
      response.status(401).json({ statusCode: 401, error: 'Unauthorized', message: refused });
    })().catch(next);
  };
}

/**
 * Bearer auth with the one admin key (`ADMIN_API_KEY`), compared in constant time: the queue board
 * and the metrics span every tenant, so a tenant's key is not enough. `what` names the resource in
 * the 401.
 */
export function adminKeyAuth(
  adminKey: string,
  failures: AuthFailureLimiter,
  what = 'The queue board',
) {
  const expected = keyDigest(adminKey);
  return guardedMiddleware(
    (request) => {
      const given = bearerToken(request.headers);
      return given !== undefined && timingSafeEqual(keyDigest(given), expected);
    },
    `${what} needs ADMIN_API_KEY`,
    failures,
  );
}
