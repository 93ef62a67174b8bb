import type { Redis } from 'ioredis';

/** Deletes every key matching `pattern` (SCAN, never KEYS): how Redis tests clean up after themselves. */
export async function deleteRedisKeys(client: Redis, pattern: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    if (keys.length) await client.del(...keys);
  } while (cursor !== '0');
}
