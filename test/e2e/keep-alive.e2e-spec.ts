import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';

/** A kept-alive connection to the app, its answers' bytes as they come, and whether it closed. */
interface Connection {
  socket: Socket;
  received(): string;
  closed(): boolean;
}

function open(app: RunningApp): Promise<Connection> {
  const { port } = new URL(app.url);
  const socket = connect(Number(port), '127.0.0.1');
  let text = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  socket.on('close', () => (closed = true));
  socket.on('error', () => (closed = true));
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve({ socket, received: () => text, closed: () => closed }));
    socket.once('error', reject);
  });
}

/** Sends `GET /health` on the connection and waits (up to 10 s) for its whole answer. */
async function health(connection: Connection): Promise<string> {
  const before = connection.received().length;
  connection.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  for (let waited = 0; waited < 10_000; waited += 20) {
    const answer = connection.received().slice(before);
    const end = answer.indexOf('\r\n\r\n');
    const length = /content-length: (\d+)/i.exec(answer)?.[1];
    if (end >= 0 && length !== undefined && answer.length >= end + 4 + Number(length))
      return answer;
    if (connection.closed()) return answer;
    await sleep(20);
  }
  return connection.received().slice(before);
}

/**
 * How long an idle kept-alive connection stays open. Node's server closes one after 5 s, shorter
 * than most proxies and HTTP clients keep theirs: a request sent on it just as the app closes it
 * fails (`write EPIPE`, `other side closed`). The app keeps it for `HTTP_KEEP_ALIVE_TIMEOUT_MS`
 * (72 s by default) on both platforms; the second app shows that the setting is what decides.
 */
describe('an idle kept-alive connection', () => {
  let byDefault: RunningApp;
  let short: RunningApp;
  beforeAll(async () => {
    [byDefault, short] = await Promise.all([
      // Short request timeouts: an idle connection outlives them (they bound requests, not idling).
      bootApp({
        ...embeddedEnv(),
        HTTP_HEADERS_TIMEOUT_MS: '1000',
        HTTP_REQUEST_TIMEOUT_MS: '2000',
      }),
      bootApp({ ...embeddedEnv(), HTTP_KEEP_ALIVE_TIMEOUT_MS: '1000' }),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([byDefault?.close(), short?.close()]);
  });

  it('serves its next request after 7 s idle, and is closed by then with the timeout at 1 s', async () => {
    const kept = await open(byDefault);
    const cut = await open(short).catch((error: unknown) => {
      kept.socket.destroy();
      throw error;
    });
    try {
      expect(await health(kept)).toMatch(/^HTTP\/1\.1 200/);
      expect(await health(cut)).toMatch(/^HTTP\/1\.1 200/);
      await sleep(7_000);
      expect(cut.closed()).toBe(true);
      expect(kept.closed()).toBe(false);
      expect(await health(kept)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      kept.socket.destroy();
      cut.socket.destroy();
    }
  }, 60_000);
});
