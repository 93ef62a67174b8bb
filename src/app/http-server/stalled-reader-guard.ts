import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** What the guard remembers of a connection between two checks. */
interface Progress {
  /** Bytes of writes that completed. */
  completed: number;
  /** Bytes the socket's handle still holds (not yet taken by the kernel). */
  queued: number;
  /** Whether bytes were waiting at the last check. */
  waiting: boolean;
  /** When the client last took some, or bytes began waiting. */
  at: number;
}

/**
 * Cuts connections whose client stopped reading: a socket with bytes waiting to be sent and none
 * taken for `sendTimeoutMs` is destroyed, which releases the response it holds in memory. A client
 * that reads, however slowly, and an idle stream (a turn waiting for its model, nothing to send)
 * are left alone. One timer for the whole server, checking every connection each quarter of the
 * timeout (at most every second).
 */
export class StalledReaderGuard {
  private readonly sockets = new Map<Socket, Progress>();
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly sendTimeoutMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Watches every connection of `server` until it closes. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => {
      this.sockets.set(socket, { ...measure(socket), waiting: false, at: this.now() });
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.timer = setInterval(() => this.check(), Math.min(1_000, this.sendTimeoutMs / 4));
    this.timer.unref();
    server.once('close', () => clearInterval(this.timer));
  }

  /** Destroys the connections that made no progress for the timeout; returns how many. */
  check(): number {
    const now = this.now();
    let cut = 0;
    for (const [socket, progress] of this.sockets) {
      const { completed, queued } = measure(socket);
      // Progress: a write completed, or the kernel took part of one (a large write completes late).
      const moved = completed > progress.completed || queued < progress.queued;
      const waiting = socket.writableLength > 0;
      const began = waiting && !progress.waiting;
      Object.assign(progress, { completed, queued, waiting });
      if (!waiting || began || moved) progress.at = now;
      else if (now - progress.at >= this.sendTimeoutMs) {
        socket.destroy();
        this.sockets.delete(socket);
        cut += 1;
      }
    }
    return cut;
  }
}

/**
 * Bytes of a socket's writes that completed (written, less those still waiting), and bytes its
 * handle still queues for the kernel (libuv's write queue, as Node's own TLS and HTTP/2 read it).
 */
function measure(socket: Socket): { completed: number; queued: number } {
  const handle = (socket as Socket & { _handle?: { writeQueueSize?: number } })._handle;
  return {
    completed: socket.bytesWritten - socket.writableLength,
    queued: handle?.writeQueueSize ?? 0,
  };
}
