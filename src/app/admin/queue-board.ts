import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { Queue } from 'bull';
import type { HttpConfig } from '../../config/http.config.js';

/** Where the queue dashboard is served. */
export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Serves bull-board, read-only, for the agent's run queue at `/admin/queues` (mount it behind an
 * admin's auth: it shows every tenant's job payloads, which hold users' messages), with its
 * Express or its Fastify adapter as the app runs on.
 */
export async function mountQueueBoard(
  app: INestApplication,
  platform: HttpConfig['adapter'],
  queue: Queue,
): Promise<void> {
  // Loaded only when the board is served (the Bull queue and an admin key): not on every start.
  const [{ createBullBoard }, { BullAdapter }] = await Promise.all([
    import('@bull-board/api'),
    import('@bull-board/api/bullAdapter'),
  ]);
  const queues = [new BullAdapter(queue, { readOnlyMode: true })];
  if (platform === 'fastify') {
    const { FastifyAdapter } = await import('@bull-board/fastify');
    const serverAdapter = new FastifyAdapter();
    serverAdapter.setBasePath(QUEUE_BOARD_PATH);
    createBullBoard({ queues, serverAdapter });
    await (app as NestFastifyApplication).register(
      serverAdapter.registerPlugin() as Parameters<NestFastifyApplication['register']>[0],
      { prefix: QUEUE_BOARD_PATH },
    );
    return;
  }
  const { ExpressAdapter } = await import('@bull-board/express');
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues, serverAdapter });
  (app as NestExpressApplication).use(
    QUEUE_BOARD_PATH,
    serverAdapter.getRouter() as Parameters<NestExpressApplication['use']>[0],
  );
}
