import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';
import { rawRequest } from '../reliability/raw-http.js';

/**
 * Asks for a conversation's whole history (tens of MB here), reads its first bytes, then reads
 * nothing for `idleMs`; then reads. It stops reading only once the answer has begun: reading the
 * history can take seconds on a loaded machine, and a client that stops before the server writes
 * anything is not yet a stalled reader (the 8 s would pass before the server's first write).
 */
async function readLate(app: RunningApp, path: string, idleMs: number): Promise<number> {
  const { port } = new URL(app.url);
  const socket = connect(Number(port), '127.0.0.1');
  let received = 0;
  socket.on('data', (chunk: Buffer) => (received += chunk.length));
  const begun = new Promise<void>((resolve, reject) => {
    socket.once('data', () => {
      socket.pause(); // from here kernel buffers fill, then the server's
      resolve();
    });
    socket.once('error', reject);
    setTimeout(() => reject(new Error('the answer did not begin within 40 s')), 40_000).unref();
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  await begun;
  await sleep(idleMs);
  await new Promise<void>((resolve) => {
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.resume();
    setTimeout(() => {
      socket.destroy();
      resolve();
    }, 20_000).unref();
  });
  return received;
}

/** The app's settings in this file: pages and bodies large enough for the history below. */
const limits = { HTTP_PAGE_BYTES: '64mb', HTTP_BODY_LIMIT: '8mb' };
const history = embeddedEnv();

/**
 * The history both cases read: four 6 MB user messages and the echo model's answers (each repeats
 * its message and quotes the earlier ones: 6 to 24 MB), written by an app of its own with the send
 * timeout off. Through an app with the 1.5 s timeout, those answers were themselves cut whenever
 * this test's process, starved of CPU on a loaded machine, paused reading one for longer than that
 * ("terminated: other side closed", seen once with two suites running at once).
 */
beforeAll(async () => {
  const writer = await bootApp({ ...history, ...limits, HTTP_SEND_TIMEOUT_MS: '0' });
  try {
    const big = 'y'.repeat(6_000_000);
    for (let i = 0; i < 4; i += 1) {
      // Each on a connection of its own (`Connection: close`), read whole. On a kept-alive one,
      // this process, slow on a loaded machine to read the previous answer (up to 18 MB), could
      // send as the app closed it after its keep-alive timeout (`write EPIPE`, seen once).
      const answer = await rawRequest(
        writer.url,
        'POST',
        '/conversations/stalled/turns',
        JSON.stringify({ message: big }),
        { connection: 'close' },
        60_000,
      );
      expect(answer.status).toBe(201);
    }
  } finally {
    await writer.close();
  }
}, 120_000);

/**
 * A client that asks for a large answer and never reads it is cut after `HTTP_SEND_TIMEOUT_MS`, so
 * the answer it pinned is released; with the timeout off, the same client gets the whole answer
 * when it finally reads (the control).
 */
describe.each([
  ['cut after the send timeout', '1500', false],
  ['kept with the timeout off (control)', '0', true],
])('a stalled reader is %s', (_name, sendTimeout, served) => {
  let app: RunningApp;
  const path = '/conversations/stalled/messages?last=1000';
  beforeAll(async () => {
    app = await bootApp({ ...history, ...limits, HTTP_SEND_TIMEOUT_MS: sendTimeout });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
  });

  it('after 8 s without reading', async () => {
    // The history holds four 6 MB user messages: the whole answer is over 24 MB. It is measured
    // only where nothing cuts (the control): on a loaded machine this test's own full read could
    // pause longer than the 1.5 s timeout and be cut as a stalled reader itself.
    const atLeast = 24_000_000;
    const received = await readLate(app, path, 8_000);
    if (served) {
      const whole = Buffer.byteLength(await (await fetch(`${app.url}${path}`)).text());
      expect(whole).toBeGreaterThan(atLeast);
      expect(received).toBeGreaterThan(whole);
    } else expect(received).toBeLessThan(atLeast / 2);
  }, 90_000);
});
