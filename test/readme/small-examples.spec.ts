import { afterAll, describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AgentService } from 'nest-agent-memory';
import { SweeperJobsModule } from '../../examples/sweeper-jobs.module.js';
import { TracedAgentModule, startTracing } from '../../examples/tracing.module.js';

// examples/use-agent-chat.ts is a React hook: tsc compiles it, a browser would run it.

describe('README examples: the sweeper jobs, tracing, the models configuration', () => {
  const env = { ...process.env };
  afterAll(() => {
    process.env = env;
  });

  it('starts the sweeps as Bull jobs on Redis', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [SweeperJobsModule] }).compile();
    await moduleRef.init();
    await moduleRef.close();
  });

  it('traces a turn and exports its spans over OTLP', async () => {
    // A local OTLP/HTTP endpoint that keeps what it receives.
    const received: Buffer[] = [];
    const collector = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => received.push(chunk));
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
    const provider = startTracing();
    try {
      const moduleRef = await Test.createTestingModule({ imports: [TracedAgentModule] }).compile();
      await moduleRef.init();
      const result = await moduleRef.get(AgentService).run({ conversationId: 't', message: 'hi' });
      expect(result.version).toBe(2);
      await moduleRef.close();
      await provider.forceFlush();
      expect(Buffer.concat(received).toString()).toContain('invoke_agent');
    } finally {
      await provider.shutdown();
      collector.close();
    }
  });

  it('builds the model from configuration', async () => {
    process.env.OPENAI_API_KEY = 'sk-test';
    process.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
    const { ModelsConfigModule } = await import('../../examples/models-config.module.js');
    const moduleRef = await Test.createTestingModule({ imports: [ModelsConfigModule] }).compile();
    await moduleRef.init();
    expect(moduleRef.get(AgentService)).toBeDefined();
    await moduleRef.close();
  });
});
