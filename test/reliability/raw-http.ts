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

/**
 * Opens a socket and writes `head`, then `body` chunks one by one while the server lets it, until
 * the server answers or closes. Resolves with the bytes of body written, what the server answered,
 * and how long it took.
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
  elapsedMs: number;
}> {
  const { hostname, port } = new URL(base);
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let written = 0;
    let writtenAtAnswer: number | undefined;
    let answer = '';
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(guard);
      socket.destroy();
      resolve({
        written,
        ...(writtenAtAnswer === undefined ? {} : { writtenAtAnswer }),
        answer,
        closed,
        elapsedMs: performance.now() - started,
      });
    };
    const guard = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (data: Buffer) => {
      writtenAtAnswer ??= written;
      answer += data.toString();
      if (/\r\n\r\n/.test(answer)) setTimeout(() => finish(false), 50);
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
