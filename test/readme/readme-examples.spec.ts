import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync } from 'node:fs';
import { Test, type TestingModule } from '@nestjs/testing';
import { TranscriptService, TranscriptsModule } from '../../examples/transcripts.module.js';
import { type ChatMemoryStore, getChatMemoryStoreToken } from '../../src/index.js';
import { TEST_POSTGRES_URL } from '../support/test-databases.js';

const root = new URL('../../', import.meta.url);

/** The README and the guides in docs/. */
function documents(): string[] {
  return [
    'README.md',
    ...readdirSync(new URL('docs/', root))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ];
}

/** The docs' code blocks that start with a `// examples/…` line, by that path. */
function readmeExamples(): Map<string, string> {
  const blocks = new Map<string, string>();
  for (const document of documents()) {
    const text = readFileSync(new URL(document, root), 'utf8');
    for (const match of text.matchAll(/```ts\n(\/\/ (examples\/[^\n]+)\n[\s\S]*?)```/g))
      blocks.set(match[2]!, match[1]!);
  }
  return blocks;
}

describe('README and guide examples', () => {
  it('are the example files, verbatim (which tsc type-checks and jest runs)', () => {
    const blocks = readmeExamples();
    expect([...blocks.keys()].sort()).toEqual([
      'examples/ai-sdk-chat.controller.ts',
      'examples/assistant.module.ts',
      'examples/custom-store.conformance.spec.ts',
      'examples/entity-profile.module.ts',
      'examples/getting-started/app.module.ts',
      'examples/getting-started/chat.controller.ts',
      'examples/getting-started/main.ts',
      'examples/http-api.module.ts',
      'examples/langchain-history.module.ts',
      'examples/langgraph-agent.module.ts',
      'examples/mcp-server.module.ts',
      'examples/memory-formation.module.ts',
      'examples/memory-tiers.module.ts',
      'examples/models-config.module.ts',
      'examples/openai-agents-session.ts',
      'examples/recall-rerank.module.ts',
      'examples/recall.module.ts',
      'examples/scripted-formation-model.ts',
      'examples/support-agent.module.ts',
      'examples/sweeper-jobs.module.ts',
      'examples/testing/node-test.conformance.test.ts',
      'examples/tracing.module.ts',
      'examples/transcripts.module.ts',
      'examples/typeorm-connection.module.ts',
      'examples/use-agent-chat.ts',
      'examples/vision-agent.module.ts',
    ]);
    for (const [path, code] of blocks) expect(code).toBe(readFileSync(new URL(path, root), 'utf8'));
  });

  it('installs every package the first example imports or its backends need', () => {
    const readme = readFileSync(new URL('docs/conversation-memory.md', root), 'utf8');
    const install = /```sh\n(npm install nest-agent-memory[^\n]*)\n```/
      .exec(readme)![1]!
      .split(' ');
    const example = readFileSync(new URL('examples/transcripts.module.ts', root), 'utf8');
    const imported = [...example.matchAll(/from '((?:@[^/']+\/)?[^/'.][^/']*)/g)].map((m) => m[1]!);
    // A Nest app has @nestjs/common and @nestjs/core already; the backends need their drivers.
    const needed = new Set([
      ...imported.filter((name) => !['@nestjs/common', '@nestjs/core'].includes(name)),
      'typeorm', // postgres
      'pg',
      'ioredis', // redis
    ]);
    for (const name of needed) expect(install).toContain(name);
  });

  describe('TranscriptsModule', () => {
    let moduleRef: TestingModule;
    beforeAll(async () => {
      process.env.DATABASE_URL = TEST_POSTGRES_URL;
      moduleRef = await Test.createTestingModule({ imports: [TranscriptsModule] }).compile();
      await moduleRef.init();
    });
    afterAll(async () => {
      await moduleRef.close();
      delete process.env.DATABASE_URL;
    });

    it('records to Postgres and Redis and reads back', async () => {
      const transcripts = moduleRef.get(TranscriptService);
      const conversationId = `readme-${Date.now()}`;
      expect(await transcripts.record(conversationId, 'first')).toBe(1);
      expect(await transcripts.record(conversationId, 'second')).toBe(2);
      expect((await transcripts.recent(conversationId)).map((m) => m.content)).toEqual([
        'first',
        'second',
      ]);
      for (const token of [getChatMemoryStoreToken(), getChatMemoryStoreToken('audit')]) {
        await moduleRef.get<ChatMemoryStore>(token).clear(conversationId);
      }
    });
  });
});
