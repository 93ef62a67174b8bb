import { describe, expect, it } from '@jest/globals';
import { MockEmbeddingModelV3 } from 'ai/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { HashingEmbeddingModel } from '../../src/modules/longterm/recall/embedding/hashing-embedding-model.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { RECALL_FACTS, recallHarness } from '../support/recall-harness.js';

const { boot } = recallHarness();

const facts = RECALL_FACTS;

describe('recall.embedder', () => {
  it('takes any AI SDK embedding model, batched at its limit', async () => {
    const model = new MockEmbeddingModelV3({
      provider: 'mock',
      modelId: 'embed-1',
      maxEmbeddingsPerCall: 2,
      doEmbed: async ({ values }) => ({
        embeddings: values.map((v) => [v.length, 1]),
        warnings: [],
      }),
    });
    const service = await boot({ uri: 'memory://', recall: { embedder: model, backfill: false } });
    expect(service.embeddingModel!.id).toBe('mock:embed-1');
    const seq = await service.nextSeq('u');
    await service.store.saveMany(facts.map(([key, value]) => ({ entityId: 'u', key, value, seq })));
    expect(await service.embedPending()).toBe(3);
    expect(model.doEmbedCalls.map((call) => call.values.length)).toEqual([2, 1]);
  });

  it('calls an OpenAI-compatible /v1/embeddings endpoint, and OpenAI through @ai-sdk/openai 4 (specification v4)', async () => {
    const requests: Array<{
      url?: string;
      auth?: string;
      body: { model: string; input: string[] };
    }> = [];
    const server: Server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk));
      request.on('end', () => {
        const parsed = JSON.parse(body) as { model: string; input: string[] };
        requests.push({ url: request.url, auth: request.headers.authorization, body: parsed });
        response.setHeader('content-type', 'application/json');
        response.end(
          JSON.stringify({
            object: 'list',
            model: parsed.model,
            data: parsed.input.map((text, index) => ({
              object: 'embedding',
              index,
              embedding: [text.length, 2, 3],
            })),
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const service = await boot({
        uri: 'memory://',
        recall: {
          embedder: {
            provider: 'openai-compatible',
            baseUrl: `http://127.0.0.1:${port}/v1/`,
            model: 'nomic-embed',
            apiKey: 'sk-local',
          },
          backfill: false,
        },
      });
      await service.store.save({ entityId: 'u', key: 'k', value: 'hello there', seq: 1 });
      expect(await service.embedPending()).toBe(1);
      expect(requests).toEqual([
        {
          url: '/v1/embeddings',
          auth: 'Bearer sk-local',
          body: expect.objectContaining({ model: 'nomic-embed', input: ['hello there'] }),
        },
      ]);
      expect(service.embeddingModel!.id).toBe('openai-compatible.embedding:nomic-embed');
      const { createOpenAI } = await import('@ai-sdk/openai-v4');
      const openai = createOpenAI({ baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-openai' });
      const viaOpenAi = await boot({
        uri: 'memory://',
        recall: { embedder: openai.embedding('text-embedding-3-small'), backfill: false },
      });
      await viaOpenAi.save({ entityId: 'u', key: 'k', value: 'hello again', seq: 1 });
      expect(requests.at(-1)).toEqual({
        url: '/v1/embeddings',
        auth: 'Bearer sk-openai',
        body: expect.objectContaining({ model: 'text-embedding-3-small', input: ['hello again'] }),
      });
      expect((await viaOpenAi.recall('u', 'hello', { mode: 'vector' }))[0]!.record.key).toBe('k');
    } finally {
      server.close();
    }
  });

  it('refuses a bad embedder or backfill option at bootstrap, naming it', async () => {
    for (const [recall, option] of [
      [{ embedder: { embed: 'no' } }, 'recall.embedder'],
      [{ embedder: { id: '', embed: async () => [] } }, 'recall.embedder'],
      [
        { embedder: { provider: 'openai-compatible', baseUrl: 'ftp://x', model: 'm' } },
        'recall.embedder',
      ],
      [
        {
          embedder: { provider: 'openai-compatible', baseUrl: 'http://x', model: 'm', apikey: 'k' },
        },
        'recall.embedder.apikey',
      ],
      [{ embedder: new HashingEmbeddingModel(), backfil: false }, 'recall.backfil'],
      [{ backfill: { intervalMs: -1 } }, 'recall.backfill.intervalMs'],
    ] as const) {
      const error = await rejectionOf(boot({ uri: 'memory://', recall: recall as never }));
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as InvalidModuleOptionsError).option).toBe(option);
    }
  });
});
