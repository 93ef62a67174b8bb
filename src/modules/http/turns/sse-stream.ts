/** The minimal writable response SSE needs (Express's and Node's both fit). */
export interface SseResponse {
  writeHead(status: number, headers: Record<string, string>): unknown;
  write(chunk: string): boolean;
  end(): unknown;
  on(event: 'close', listener: () => void): unknown;
  flushHeaders?(): void;
}

/**
 * A Server-Sent Events response. Once the client has gone, writes are dropped silently: the turn
 * behind the stream goes on and is stored.
 */
export class SseStream {
  private closed = false;

  constructor(private readonly response: SseResponse) {
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache, no-transform',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.flushHeaders?.();
    response.on('close', () => {
      this.closed = true;
    });
  }

  /** Sends one event whose data is `data` as JSON. */
  send(event: string, data: unknown): void {
    if (this.closed) return;
    this.response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  }

  end(): void {
    if (this.closed) return;
    this.closed = true;
    this.response.end();
  }
}
