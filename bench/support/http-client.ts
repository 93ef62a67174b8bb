import http from 'node:http';

/**
 * A keep-alive `node:http` client for the HTTP benchmark: half the per-request cost of `fetch` on
 * Node 20 (about 0.3 ms against 0.8 ms on loopback), so the numbers show the server, not the client.
 */
export class BenchHttpClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(private readonly baseUrl: string) {}

  /** Sends one request; resolves with the status and the parsed JSON body. */
  request(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: unknown }> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = http.request(
        `${this.baseUrl}${path}`,
        {
          method,
          agent: this.agent,
          headers: payload
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }
            : {},
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (text += chunk));
          res.on('end', () =>
            resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
