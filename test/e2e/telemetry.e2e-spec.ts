import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { bootApp, embeddedEnv, type RunningApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiAnswer } from '../support/fake-llm-server.js';

/** A stand-in OTLP/HTTP collector on loopback: keeps the bodies posted to `/v1/traces`. */
class FakeCollector {
  readonly traces: string[] = [];
  private server?: Server;

  async start(): Promise<string> {
    this.server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        if (request.url === '/v1/traces') this.traces.push(Buffer.concat(chunks).toString());
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}

/** The value of one sample of a Prometheus text exposition, or `undefined`. */
function sample(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([a-z_:]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const given = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((pair) => [pair[1], pair[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => given[key] === value))
      return Number(match[3]);
  }
  return undefined;
}

const ADMIN = 'admin-key-0123456789';
const TENANT = 'key-of-acme-000001';

describe('the example app’s traces and metrics', () => {
  const llm = new FakeLlmServer();
  const collector = new FakeCollector();
  let app: RunningApp;

  beforeAll(async () => {
    const [llmUrl, collectorUrl] = await Promise.all([llm.start(), collector.start()]);
    app = await bootApp({
      ...embeddedEnv(),
      OPENAI_BASE_URL: llmUrl,
      LLM_MODEL: 'stub',
      LLM_MAX_RETRIES: '0',
      API_KEYS: `acme:${TENANT}`,
      ADMIN_API_KEY: ADMIN,
      OTEL_EXPORTER_OTLP_ENDPOINT: collectorUrl,
      // Memories formed from each turn with an entity, by the offline demo model (no model call).
      AGENT_FORMATION: 'plain-statements',
      AGENT_PROFILE: 'off',
    });
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await Promise.all([llm.stop(), collector.stop()]);
  });

  const turn = (conversation: string, body: object) =>
    fetch(`${app.url}/conversations/${conversation}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TENANT}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('counts turns, model and tool calls, tokens and store operations at GET /metrics, and exports the spans over OTLP/HTTP', async () => {
    llm.enqueue(
      openAiAnswer(null, [
        { id: 'call_0', name: 'memory_save', arguments: '{"key":"city","value":"Lisbon"}' },
      ]),
      openAiAnswer('Noted.'),
      openAiAnswer('Hello.'),
    );
    expect((await turn('m1', { message: 'I live in Lisbon', entityId: 'u1' })).status).toBe(201);
    expect((await turn('m2', { message: 'Hi' })).status).toBe(201);

    expect((await fetch(`${app.url}/metrics`)).status).toBe(401);
    const asTenant = await fetch(`${app.url}/metrics`, {
      headers: { authorization: `Bearer ${TENANT}` },
    });
    expect(asTenant.status).toBe(401);
    const scrape = () =>
      fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } });
    const response = await scrape();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    let text = await response.text();
    // The first turn's formation job ends after the turn: scraped again until it is counted.
    const formed = () =>
      sample(text, 'agent_memory_formation_lag_seconds_count', { outcome: 'written' });
    for (let i = 0; i < 200 && formed() === undefined; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      text = await (await scrape()).text();
    }
    expect(formed()).toBe(1);
    expect(sample(text, 'agent_memory_formation_operations_total', { op: 'add' })).toBe(1);
    // The demo model calls no model: no formation tokens.
    expect(
      sample(text, 'agent_memory_formation_tokens_total', { tenant: 'acme', direction: 'input' }),
    ).toBeUndefined();

    expect(sample(text, 'agent_memory_turn_duration_seconds_count', { outcome: 'completed' })).toBe(
      2,
    );
    expect(
      sample(text, 'agent_memory_model_call_duration_seconds_count', {
        model: 'stub',
        outcome: 'ok',
      }),
    ).toBe(3);
    expect(
      sample(text, 'agent_memory_tool_calls_total', { tool: 'memory_save', outcome: 'ok' }),
    ).toBe(1);
    expect(
      sample(text, 'agent_memory_tokens_total', { model: 'stub', direction: 'input' }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, 'agent_memory_tokens_total', { model: 'stub', direction: 'output' }),
    ).toBeGreaterThan(0);
    expect(
      sample(text, 'agent_memory_store_operation_duration_seconds_count', {
        store: 'chat_memory',
        backend: 'sqlite',
        operation: 'add',
      }),
    ).toBe(2);
    expect(
      sample(text, 'agent_memory_store_operation_duration_seconds_count', {
        store: 'longterm_memory',
        backend: 'sqlite',
        operation: 'save_many',
      }),
    ).toBe(3); // the turn's flush; its formation job's memory versions, then its record
    expect(sample(text, 'agent_memory_longterm_refused_writes_total')).toBe(0);
    expect(sample(text, 'agent_memory_run_retries_total')).toBe(0);
    expect(text).toContain('# TYPE agent_memory_queue_jobs gauge');
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThan(0);

    // The same turns' spans went to the OTLP/HTTP collector, flushed at shutdown (one test: this
    // step needs the turns above, whatever order the tests run in).
    await app.close();
    const exported = collector.traces.join('\n');
    expect(exported).toContain('invoke_agent');
    expect(exported).toContain('chat stub');
    expect(exported).toContain('execute_tool memory_save');
    expect(exported).toContain('gen_ai.usage.input_tokens');
    expect(exported).toContain('memory_formation');
    // Contents stay out unless OTEL_CAPTURE_CONTENT is set.
    expect(exported).not.toContain('Lisbon');
  }, 30_000);
});
