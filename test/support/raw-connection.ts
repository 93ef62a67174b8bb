import { connect, type Socket } from 'node:net';

/** `GET /health` as written on a raw connection. */
export const HEALTH_REQUEST = 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';

/**
 * A kept-alive HTTP/1.1 connection to an app, written and read by hand: requests go out as given,
 * answers come back whole (the head and a `Content-Length` body), one after another, so a test can
 * see which connection an answer came on and whether the app closed it.
 */
export class RawConnection {
  /** Resolves when the connection has closed (either side). */
  readonly whenClosed: Promise<void>;
  private received = '';
  private closed = false;
  private wake: () => void = () => undefined;

  private constructor(private readonly socket: Socket) {
    // One character a byte, so `Content-Length` counts characters.
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.received += chunk;
      this.wake();
    });
    this.whenClosed = new Promise((resolve) =>
      socket.on('close', () => {
        this.closed = true;
        this.wake();
        resolve();
      }),
    );
    socket.on('error', () => undefined); // the close follows
  }

  /** Opens a connection to the app at `url`. */
  static open(url: string): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    return new Promise((resolve, reject) => {
      socket.once('connect', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Whether the connection has closed. */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Writes `request` and resolves with the next whole answer, or with what came before the
   * connection closed (empty when nothing did); rejects after `timeoutMs`.
   */
  async exchange(request: string, timeoutMs = 10_000): Promise<string> {
    this.socket.write(request);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = this.takeAnswer();
      if (answer !== undefined) return answer;
      if (this.closed) return this.takeRest();
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no whole answer to ${request.split('\r\n')[0]} in ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Closes the connection from this side. */
  destroy(): void {
    this.socket.destroy();
  }

  private takeAnswer(): string | undefined {
    const end = this.received.indexOf('\r\n\r\n');
    if (end < 0) return undefined;
    const length = /\r\ncontent-length: *(\d+)/i.exec(this.received.slice(0, end))?.[1];
    const total = end + 4 + Number(length ?? 0);
    if (this.received.length < total) return undefined;
    const answer = this.received.slice(0, total);
    this.received = this.received.slice(total);
    return answer;
  }

  private takeRest(): string {
    const rest = this.received;
    this.received = '';
    return rest;
  }
}
