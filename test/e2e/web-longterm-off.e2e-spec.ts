import { describe, expect, it } from '@jest/globals';
import { KEYS, VIEWPORTS, openWithKey, webSuite } from '../support/web-harness.js';

/**
 * The inspector of an app whose long-term tier is off (`LONGTERM_MEMORY_URI=off`): the server's
 * 503 names what is off and how to turn it on, and the page says it in those words, not as a
 * server fault to retry.
 */
describe('the inspector with the long-term tier off', () => {
  const web = webSuite({ LONGTERM_MEMORY_URI: 'off' });

  it("says what the server's 503 says: the tier is off, and the setting that turns it on", async () => {
    const page = await web.open(VIEWPORTS[0]);
    await openWithKey(page, web.app().url, KEYS[0]!, '/inspector');
    await page.getByLabel('Entity').fill('me');
    const banner = page.getByTestId('inspector-error');
    await banner.getByText(/LONGTERM_MEMORY_URI/).waitFor();
    const said = await banner.innerText();
    expect(said).toMatch(/^The server can't do that now\. Long-term memory is disabled/);
    expect(said).not.toContain('Try again');

    await page.getByLabel('Words').fill('Lisbon');
    await page.getByTestId('recall').click();
    await page
      .getByTestId('recall-error')
      .getByText(/LONGTERM_MEMORY_URI/)
      .waitFor();
  }, 60_000);

  it('keeps "try again" for a 503 that only names its status (a server shutting down)', async () => {
    const page = await web.open(VIEWPORTS[0]);
    // What Fastify answers while the app closes: the status text and nothing more.
    await page.route('**/entities/**', (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({
          statusCode: 503,
          error: 'Service Unavailable',
          message: 'Service Unavailable',
        }),
      }),
    );
    await openWithKey(page, web.app().url, KEYS[0]!, '/inspector');
    await page.getByLabel('Entity').fill('someone');
    await page
      .getByTestId('inspector-error')
      .getByText('The server had a problem (error 503). Try again in a moment')
      .waitFor();
  }, 60_000);
});
