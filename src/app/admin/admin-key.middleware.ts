import { timingSafeEqual } from 'node:crypto';
import { bearerToken, keyDigest } from '../auth/bearer-token.js';

/**
 * Bearer auth with the one admin key (`ADMIN_API_KEY`), compared in constant time: the queue board
 * and the metrics span every tenant, so a tenant's key is not enough. `what` names the resource in
 * the 401.
 */
export function adminKeyAuth(adminKey: string, what = 'The queue board') {
  const expected = keyDigest(adminKey);
  return (
    request: { headers: Record<string, string | string[] | undefined> },
    response: { status(code: number): { json(body: unknown): void } },
    next: () => void,
  ): void => {
    const given = bearerToken(request.headers);
    if (given !== undefined && timingSafeEqual(keyDigest(given), expected)) return next();
    response.status(401).json({
      statusCode: 401,
      error: 'Unauthorized',
      message: `${what} needs ADMIN_API_KEY`,
    });
  };
}
