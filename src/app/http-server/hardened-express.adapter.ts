import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { createServer } from 'node:http';
import { StalledReaderGuard } from './stalled-reader-guard.js';

/** How long a client may take to send a request, and to take an answer. */
export interface RequestTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** How long a client may leave an answer unread before the connection is cut (0: never). */
  sendTimeoutMs: number;
}

/**
 * The Express adapter with an HTTP server that bounds how long a client may take to send its
 * headers and its whole request (slow-loris clients are cut off: 408, then the socket closes), and
 * checks those bounds every second or more often (Node's default check runs every 30 s). Responses
 * are not bounded in time (a streamed turn may run as long as it needs), but a client that stops
 * reading one is cut after the send timeout ({@link StalledReaderGuard}).
 */
export class HardenedExpressAdapter extends ExpressAdapter {
  constructor(private readonly timeouts: RequestTimeouts) {
    super();
  }

  override initHttpServer(options: NestApplicationOptions): void {
    super.initHttpServer(options);
    if (options.httpsOptions) return;
    const { headersTimeoutMs, requestTimeoutMs, sendTimeoutMs } = this.timeouts;
    this.httpServer = createServer(
      {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 2)),
      },
      this.getInstance(),
    );
    if (sendTimeoutMs > 0) new StalledReaderGuard(sendTimeoutMs).attach(this.httpServer);
  }
}
