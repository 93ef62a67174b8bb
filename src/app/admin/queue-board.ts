import { createBullBoard } from '@bull-board/api';
import { BullAdapter } from '@bull-board/api/bullAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type { Queue } from 'bull';

/** Where the queue dashboard is served. */
export const QUEUE_BOARD_PATH = '/admin/queues';

/**
 * Serves bull-board, read-only, for the agent's run queue at `/admin/queues` (mount it behind an
 * admin's auth: it shows every tenant's job payloads, which hold users' messages).
 */
export function mountQueueBoard(app: NestExpressApplication, queue: Queue): void {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(QUEUE_BOARD_PATH);
  createBullBoard({ queues: [new BullAdapter(queue, { readOnlyMode: true })], serverAdapter });
  app.use(
    QUEUE_BOARD_PATH,
    serverAdapter.getRouter() as Parameters<NestExpressApplication['use']>[0],
  );
}
