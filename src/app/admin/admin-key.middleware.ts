import { timingSafeEqual } from 'node:crypto';
import { bearerToken, keyDigest } from '../auth/bearer-token.js';
import type { AuthFailureLimiter } from '../auth/auth-failure-limiter.js';
import { writeJson } from '../http-server/response-header.js';

/** The raw Node request and response the auth middlewares use (on Express or Fastify). */
export interface MiddlewareRequest {
  headers: Record<string, string | string[] | undefined>;
  ip?: string;
}
export interface MiddlewareResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body: string): unknown;
}

/**
 * Auth for routes Express serves outside Nest's guards: `check` says whether the request may pass.
 * A request that presents a key counts against the client address like the API's
 * (`AUTH_FAILURES_MAX`), and a blocked address gets 429 with `Retry-After`; `refused` is the 401's
 * message for a wrong key, `missing` (by default the same) for none.
 */
export function guardedMiddleware(
  check: (request: MiddlewareRequest) => boolean,
  refused: string,
  failures: AuthFailureLimiter,
  missing = refused,
) {
  const unauthorized = (response: MiddlewareResponse, message = refused) =>
    writeJson(response, 401, { statusCode: 401, error: 'Unauthorized', message });
  return (
    request: MiddlewareRequest,
    response: MiddlewareResponse,
    next: (error?: unknown) => void,
  ): void => {
    if (bearerToken(request.headers) === undefined) return unauthorized(response, missing);
    void (async () => {
      const attempt = await failures.attempt(request.ip, response);
      if (attempt.refused) return writeJson(response, 429, attempt.refused);
      const passed = check(request);
      attempt.settle(passed);
      if (passed) return next();
      unauthorized(response);
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
