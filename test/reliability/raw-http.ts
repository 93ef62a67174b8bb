import { Agent, request } from 'node:http';
import { connect } from 'node:net';

/** A keep-alive agent, so thousands of fuzz requests reuse a few sockets. */
export const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

/** A response: status and body text (`json` when it parses). */
export interface RawResponse {
  status: number;
  text: string;
  json?: unknown;
  contentType?: string;
}

/**
 * Sends a request with its path exactly as given (no URL normalization: `..`, `%2e`, `%00` reach
 * the server as written), with a bounded wait.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  body?: string,
  headers: Record<string, string> = {},
  timeoutMs = 10_000,
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method,
        path,
        agent: keepAlive,
        headers: {
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          ...headers,
        },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = undefined;
          }
          resolve({
            status: res.statusCode ?? 0,
            text,
            json,
            ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}),
          });
        });
      },
    );
    req.on('timeout', () =>
      req.destroy(new Error(`${method} ${path}: no answer in ${timeoutMs} ms`)),
    );
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** How long a server that has answered gets to close the connection (every caller expects it to). */
const CLOSE_WAIT_MS = 5_000;

/**
 * Opens a socket and writes `head`, then `body` chunks one by one while the server lets it, until
 * the server answers or closes; once it has answered, waits for the close (up to 5 s). Resolves
 * with the bytes of body written, what the server answered, whether it closed, and how long the
 * answer (or the close, if it came first) took.
 */
export function streamUntilAnswered(
  base: string,
  head: string,
  nextChunk: () => Buffer | undefined,
  intervalMs = 0,
  timeoutMs = 20_000,
): Promise<{
  written: number;
  /** Bytes of body written when the first byte of the answer came. */
  writtenAtAnswer?: number;
  answer: string;
  closed: boolean;
  /** Until the answer's first byte, or the close when the server closed without answering. */
  elapsedMs: number;
}> {
  const { hostname, port } = new URL(base);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let written = 0;
    let writtenAtAnswer: number | undefined;
    let answeredMs: number | undefined;
    let answer = '';
    let done = false;
    let closeWait: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(guard);
      clearTimeout(closeWait);
      socket.destroy();
      resolve({
        written,
        ...(writtenAtAnswer === undefined ? {} : { writtenAtAnswer }),
        answer,
        closed,
        elapsedMs: answeredMs ?? performance.now() - started,
      });
    };
    const guard = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (data: Buffer) => {
      writtenAtAnswer ??= written;
      answeredMs ??= performance.now() - started;
      answer += data.toString();
      // The answer's head is in: the close follows (it waited a fixed 50 ms, which a server
      // starved of CPU could miss, and a closing server then looked like one keeping the socket).
      if (/\r\n\r\n/.test(answer)) closeWait ??= setTimeout(() => finish(false), CLOSE_WAIT_MS);
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
    const pump = () => {
      if (done) return;
      const chunk = nextChunk();
      if (!chunk) return;
      written += chunk.length;
      const more = socket.write(chunk);
      if (intervalMs > 0) setTimeout(pump, intervalMs);
      else if (more) setImmediate(pump);
      else socket.once('drain', pump);
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
  });
}
