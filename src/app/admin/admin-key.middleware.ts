import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (key: string) => createHash('sha256').update(key).digest();

/**
 * Bearer auth with the one admin key (`ADMIN_API_KEY`), compared in constant time: the queue board
 * shows every tenant's jobs, so a tenant's key is not enough.
 */
export function adminKeyAuth(adminKey: string) {
  const expected = digest(adminKey);
  return (
    request: { headers: Record<string, string | string[] | undefined> },
    response: { status(code: number): { json(body: unknown): void } },
    next: () => void,
  ): void => {
    const header = request.headers['authorization'];
    const given = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1] : undefined;
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return next();
    response.status(401).json({
      statusCode: 401,
      error: 'Unauthorized',
      message: 'The queue board needs ADMIN_API_KEY',
    });
  };
}
