import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LlmAdapter } from '../../src/modules/llm/interfaces/llm.interface.js';
import { inspect } from 'node:util';
import { createLlmAdapter } from '../../src/modules/llm/create-llm-adapter.js';
import { LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { FakeLlmServer } from '../support/fake-llm-server.js';

const SECRET = 'sk-very-secret-0123456789';
const configured = new FakeLlmServer();
const elsewhere = new FakeLlmServer();
let configuredUrl: string;
let elsewhereUrl: string;
beforeAll(async () => {
  configuredUrl = await configured.start();
  elsewhereUrl = await elsewhere.start();
});
afterAll(async () => {
  await configured.stop();
  await elsewhere.stop();
});

/** Built when a test runs: the servers' addresses are known only then. */
const adapters: Record<string, () => LlmAdapter> = {
  openai: () =>
    createLlmAdapter({
      provider: 'openai',
      model: 'm',
      baseUrl: configuredUrl,
      apiKey: SECRET,
    }),
  anthropic: () =>
    createLlmAdapter({
      provider: 'anthropic',
      model: 'm',
      baseUrl: configuredUrl,
      apiKey: SECRET,
    }),
};

describe('LLM API keys stay secret', () => {
  it.each(Object.keys(adapters))(
    '%s refuses a redirect to another origin; the key never reaches it',
    async (name) => {
      const adapter = adapters[name]!();
      configured.reset();
      elsewhere.reset();
      configured.enqueue({
        kind: 'json',
        status: 307,
        headers: { location: `${elsewhereUrl}/steal` },
        body: {},
      });
      elsewhere.fallback = () => ({ kind: 'json', body: {} });
      const error = await rejectionOf(
        adapter.chat({ messages: [{ role: 'user', content: 'hi' }] }),
      );
      // Anything else is shown whole (its message and stack), not as its constructor's name.
      if (!(error instanceof LlmResponseError)) throw error;
      expect(error).toMatchObject({ status: 307, retryable: false });
      expect((error as Error).message).toContain('redirect');
      expect(configured.requests).toHaveLength(1);
      expect(elsewhere.requests).toHaveLength(0);
    },
  );

  it.each(Object.keys(adapters))('%s keeps the key out of inspect and JSON', (name) => {
    const adapter = adapters[name]!();
    expect(inspect(adapter, { depth: 10, showHidden: true })).not.toContain(SECRET);
    expect(JSON.stringify(adapter)).not.toContain(SECRET);
  });

  it('never puts option values in an invalid-options error', () => {
    expect(() =>
      createLlmAdapter({ provider: 'OpenAI', model: 'm', apiKey: SECRET } as never),
    ).toThrow(/provider "OpenAI"/);
    for (const options of [
      { provider: 'OpenAI', apiKey: SECRET },
      { provider: 'openai', model: 'm', apiKey: SECRET, timeoutMs: -1 },
      { provider: 'openai', model: '', apiKey: SECRET },
      { provider: 'openai', model: 'm', apiKey: SECRET, baseUrl: 42 },
    ]) {
      try {
        createLlmAdapter(options as never);
        throw new Error('accepted');
      } catch (error) {
        expect((error as Error).message).not.toContain(SECRET);
        expect((error as Error).message).not.toBe('accepted');
      }
    }
  });
});
