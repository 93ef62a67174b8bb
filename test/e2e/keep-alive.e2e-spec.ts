import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { setTimeout as sleep } from 'node:timers/promises';
import { type RunningApp, bootApp, embeddedEnv } from '../support/app-harness.js';
import { HEALTH_REQUEST, RawConnection } from '../support/raw-connection.js';

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
    const kept = await RawConnection.open(byDefault.url);
    const cut = await RawConnection.open(short.url).catch((error: unknown) => {
      kept.destroy();
      throw error;
    });
    try {
      expect(await kept.exchange(HEALTH_REQUEST)).toMatch(/^HTTP\/1\.1 200/);
      expect(await cut.exchange(HEALTH_REQUEST)).toMatch(/^HTTP\/1\.1 200/);
      await sleep(7_000);
      expect(cut.isClosed).toBe(true);
      expect(kept.isClosed).toBe(false);
      expect(await kept.exchange(HEALTH_REQUEST)).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      kept.destroy();
      cut.destroy();
    }
  }, 60_000);
});
