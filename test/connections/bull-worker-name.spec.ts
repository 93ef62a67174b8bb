import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { openBullQueue } from '../../src/modules/connections/redis/open-bull-queue.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

/**
 * Bull's `process()` names its blocking connection without handling the reply; a queue closed
 * before the reply came left an unhandled rejection ("Connection is closed."), which ends a Node
 * process and failed whichever test ran next. Here the blocking connection is closed before
 * `process()`, so the naming always fails.
 */
describe('a Bull queue whose worker cannot be named', () => {
  const shared = new Redis(TEST_REDIS_URL);
  afterAll(async () => {
    await shared.quit();
  });

  it('leaves no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const record = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', record);
    try {
      const opened = await openBullQueue(
        `worker-name-${process.pid}`,
        { redisUrl: TEST_REDIS_URL, prefix: `worker-name-test-${process.pid}` },
        shared,
        'the test',
      );
      const { bclient } = opened.queue as unknown as { bclient: Redis };
      bclient.disconnect();
      opened.queue.process(1, async () => undefined).catch(() => undefined);
      await sleep(100); // a rejection would be reported by now
      await opened.close();
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', record);
    }
  });
});
