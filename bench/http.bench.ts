/**
 * HTTP benchmark (`npm run bench:http`): the example app (`AppModule`, as `main.ts` configures it)
 * on loopback, against a local OpenAI-compatible stub that answers at once, on the embedded default
 * (SQLite, inline queue) and on Postgres + Redis (Bull):
 * - a turn over HTTP (`POST /conversations/:id/turns`) vs the same turn through `AgentService.run`
 *   in process (the floor), alternating call by call: the difference is the HTTP layer's overhead
 *   (routing, guards, validation, tenancy, JSON, the loopback round trip);
 * - `GET /conversations/:id/messages?last=20` on a 10,000-message conversation vs the store's
 *   `tail(20)` in process.
 * Targets: HTTP overhead per turn ≤ 1 ms p50; the read route within 2× of `tail`.
 */
import 'reflect-metadata';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { NestFactory } from '@nestjs/core';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
// The built app (`npm run build`): Nest's DI and Swagger need the decorator metadata tsc emits.
import { AppModule } from '../dist/app.module.js';
import { appSqlTarget } from '../dist/config/sql-target.config.js';
import { configureApp } from '../dist/app/configure-app.js';
import { loadAllConfig } from '../dist/config/validate-env.js';
import { AgentService, CHAT_MEMORY_STORE, type ChatMemoryStore } from '../dist/index.js';
import { FakeLlmServer, openAiCompletion } from '../test/support/fake-llm-server.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from '../test/support/test-databases.js';
import { BenchHttpClient } from './support/http-client.js';
import { compareRow, measurePair, TABLE_HEADER } from './support/measure.js';

const TURNS = Number(process.env.BENCH_HTTP_TURNS ?? 600);
const READS = Number(process.env.BENCH_HTTP_READS ?? 3_000);
const HISTORY = 10_000;
const CONVERSATIONS = 50;

const llm = new FakeLlmServer();
const llmUrl = await llm.start();
llm.fallback = () => openAiCompletion('ok');

const layouts: Array<[string, Record<string, string>]> = [
  ['sqlite (embedded default)', { SQLITE_PATH: join(tempDir(), 'bench.sqlite') }],
  [
    'postgres + redis (bull)',
    {
      CHAT_MEMORY_BACKEND: 'postgres',
      DATABASE_URL: TEST_POSTGRES_URL,
      LONGTERM_MEMORY_URI: TEST_POSTGRES_URL,
      REDIS_URL: TEST_REDIS_URL,
      QUEUE_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
    },
  ],
];

console.log(TABLE_HEADER);
for (const [label, env] of layouts) {
  Object.assign(process.env, {
    LOG_LEVEL: 'silent',
    RATE_LIMIT_MAX: '0',
    OPENAI_BASE_URL: llmUrl,
    LLM_MODEL: 'stub',
    ...env,
  });
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot({ database: appSqlTarget() }),
    {
      bodyParser: false,
      logger: ['error'],
      abortOnError: false,
    },
  );
  configureApp(app, loadAllConfig(process.env));
  await app.listen(0, '127.0.0.1');
  const client = new BenchHttpClient(await app.getUrl());
  const agent = app.get(AgentService);
  const store = app.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
  const run = randomUUID().slice(0, 8);

  const turns = await measurePair(
    async (i) => {
      const response = await client.request(
        'POST',
        `/conversations/h-${run}-${i % CONVERSATIONS}/turns`,
        { message: `hello ${i}` },
      );
      if (response.status !== 201) throw new Error(`turn answered ${response.status}`);
    },
    (i) => agent.run({ conversationId: `p-${run}-${i % CONVERSATIONS}`, message: `hello ${i}` }),
    TURNS,
  );
  console.log(compareRow(label, 'turn: HTTP vs AgentService.run', turns));
  console.log(
    `|  | HTTP overhead per turn | p50 ${(turns.library.p50Ms - turns.floor.p50Ms).toFixed(3)} ms | p99 ${(turns.library.p99Ms - turns.floor.p99Ms).toFixed(3)} ms |  |  |  |  |  |`,
  );

  const long = `long-${run}`;
  for (let start = 0; start < HISTORY; start += 500)
    await store.add(
      long,
      Array.from({ length: 500 }, (_, j) => ({
        role: (start + j) % 2 ? ('assistant' as const) : ('user' as const),
        content: `message ${start + j} `.repeat(4),
      })),
    );
  const reads = await measurePair(
    async () => {
      const response = await client.request('GET', `/conversations/${long}/messages?last=20`);
      const body = response.body as { messages: unknown[] };
      if (body.messages.length !== 20) throw new Error('expected 20 messages');
    },
    () => store.tail(long, 20),
    READS,
  );
  console.log(compareRow(label, 'GET messages?last=20 vs tail(20), 10k history', reads));
  await agent.clearConversation(long);
  for (let c = 0; c < CONVERSATIONS; c++) {
    await agent.clearConversation(`h-${run}-${c}`);
    await agent.clearConversation(`p-${run}-${c}`);
  }
  client.close();
  await app.close();
}
await llm.stop();
