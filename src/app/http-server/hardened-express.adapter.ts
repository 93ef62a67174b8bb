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
  /** How long a kept-alive connection may wait idle for its next request before it is closed. */
  keepAliveTimeoutMs: number;
}

/**
 * The Express adapter with an HTTP server that bounds how long a client may take to send its
 * headers and its whole request (slow-loris clients are cut off: 408, then the socket closes), and
 * checks those bounds every second or more often (Node's default check runs every 30 s). Responses
 * are not bounded in time (a streamed turn may run as long as it needs), but a client that stops
 * reading one is cut after the send timeout ({@link StalledReaderGuard}). An idle kept-alive
 * connection stays open for the keep-alive timeout (Node's own default is 5 s, shorter than most
 * proxies keep theirs: a proxy reusing one the app had just closed would fail its request).
 */
export class HardenedExpressAdapter extends ExpressAdapter {
  constructor(private readonly timeouts: RequestTimeouts) {
    super();
  }

  override initHttpServer(options: NestApplicationOptions): void {
    super.initHttpServer(options);
    if (options.httpsOptions) return;
    const { headersTimeoutMs, requestTimeoutMs, sendTimeoutMs, keepAliveTimeoutMs } = this.timeouts;
    this.httpServer = createServer(
      {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        connectionsCheckingInterval: Math.min(1_000, Math.ceil(headersTimeoutMs / 2)),
      },
      this.getInstance(),
    );
    this.httpServer.keepAliveTimeout = keepAliveTimeoutMs;
    if (sendTimeoutMs > 0) new StalledReaderGuard(sendTimeoutMs).attach(this.httpServer);
  }
}
