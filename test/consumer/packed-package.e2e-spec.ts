import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootApp } from '../support/app-harness.js';
import { FakeLlmServer, openAiCompletion, openAiStream } from '../support/fake-llm-server.js';
import { tempDir } from '../support/test-databases.js';
import { ROOT, TSCONFIG, run, runAsync, scratchApp } from '../support/consumer-app.js';

/** The user's app: a SQLite chat store and the agent on the offline echo model; one turn. */
const ESM_APP = `import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AgentModule, AgentService, ChatMemoryModule } from 'nest-agent-memory';

@Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: process.argv[2]! }),
    AgentModule.forRoot({ llm: { provider: 'echo' } }),
  ],
})
class AppModule {}

const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
const result = await app.get(AgentService).run({ conversationId: 'c1', message: 'hello' });
console.log(JSON.stringify({ reply: result.reply.content, version: result.version }));
await app.close();
`;

const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** Runs the two AI SDK examples of the README as a user's app would. */
const AI_SDK_APP = `import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { CHAT_MEMORY_STORE, type ChatMemoryStore } from 'nest-agent-memory';
import { AiSdkChatModule } from './ai-sdk-chat.controller.js';
import { VisionAgentModule, VisionService } from './vision-agent.module.js';

const vision = await NestFactory.createApplicationContext(VisionAgentModule, { logger: false });
const reply = await vision.get(VisionService).describe('c1', Buffer.from('${PNG}', 'base64'));
const [stored] = await vision.get<ChatMemoryStore>(CHAT_MEMORY_STORE).get('c1');
await vision.close();

const chat = await NestFactory.create(AiSdkChatModule, { logger: false });
await chat.listen(0, '127.0.0.1');
const post = async (text: string) =>
  (await fetch(\`\${await chat.getUrl()}/ai-sdk/c2\`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  })).text();
const first = await post('I am Ada.');
const second = await post('Who am I?');
await chat.close();
console.log(JSON.stringify({ reply, stored: stored!.content, first, second }));
`;

/** The same app from CommonJS, with `require()` (Node ≥ 20.19 loads ESM packages that way). */
const CJS_APP = `require('reflect-metadata');
const { Module } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const {
  AgentModule,
  AgentService,
  ChatMemoryModule,
  WordVectorRerankingModel,
} = require('nest-agent-memory');

class AppModule {}
Module({
  imports: [
    ChatMemoryModule.forRoot({ backend: 'sqlite', path: process.argv[2] }),
    AgentModule.forRoot({ llm: { provider: 'echo' } }),
  ],
})(AppModule);

(async () => {
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false });
  const result = await app.get(AgentService).run({ conversationId: 'c1', message: 'hello' });
  await app.close();
  // The word-vector rerank from the built package: a file of vectors, and the optional package
  // (not installed here) named in the error.
  const reranker = new WordVectorRerankingModel({ path: process.argv[3] });
  const scores = await reranker.rerank('where does she work?', ['a new job', 'the kitchen']);
  const missing = await new WordVectorRerankingModel().load().catch((error) => error);
  console.log(
    JSON.stringify({
      reply: result.reply.content,
      version: result.version,
      scores: scores.map((score) => Math.round(score * 100) / 100),
      missing: missing.name,
    }),
  );
})();
`;

describe('the packed package in a fresh app (only the SQLite peers installed)', () => {
  let packDir: string;
  let tarball: string;
  /** The app with only the SQLite peers: the ESM app, and the CommonJS one in a folder of it. */
  let sqliteOnly: string;

  beforeAll(() => {
    packDir = tempDir('consumer-pack-');
    const output = run('npm', ['pack', '--pack-destination', packDir, '--ignore-scripts'], ROOT);
    tarball = join(packDir, output.trim().split('\n').at(-1)!);
    sqliteOnly = scratchApp('module', tarball, [], { typescript7: true });
  }, 120_000);
  afterAll(() => rmSync(packDir, { recursive: true, force: true }));

  it('type-checks strict without skipLibCheck, builds and runs a turn in an ESM TypeScript app (TypeScript 6 and 7)', () => {
    const dir = sqliteOnly;
    mkdirSync(join(dir, 'src'));
    writeFileSync(join(dir, 'src/main.ts'), ESM_APP);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    for (const [compiler, outDir] of [
      ['typescript', 'dist'],
      ['typescript7', 'dist7'],
    ] as const) {
      const tsc = join(dir, 'node_modules', compiler, 'bin/tsc');
      run(process.execPath, [tsc, '-p', dir, '--outDir', outDir], dir);
      const output = run(
        process.execPath,
        [`${outDir}/main.js`, join(dir, `chat-${compiler}.sqlite`)],
        dir,
      );
      expect(JSON.parse(output)).toEqual({ reply: expect.stringContaining('hello'), version: 2 });
    }
    const version = (compiler: string) =>
      (
        JSON.parse(readFileSync(join(dir, 'node_modules', compiler, 'package.json'), 'utf8')) as {
          version: string;
        }
      ).version;
    expect([version('typescript'), version('typescript7')].map((v) => v.split('.')[0])).toEqual([
      '6',
      '7',
    ]);
    // docs/getting-started.md as written: its files, its tsconfig, the TypeScript its
    // `npm install -D typescript` installs (7), and its next step's `process.env.DATABASE_URL`.
    const guide = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');
    const tsconfig = /`tsconfig\.json` \([\s\S]*?```json\n([\s\S]*?)```/.exec(guide)![1]!;
    const nextStep = /`(ChatMemoryModule\.forRoot\(\{ backend: 'postgres', url: [^`]+\))`/.exec(
      guide,
    )![1]!;
    const app = join(dir, 'guide');
    mkdirSync(join(app, 'src'), { recursive: true });
    writeFileSync(join(app, 'tsconfig.json'), tsconfig);
    cpSync(join(ROOT, 'examples/getting-started'), join(app, 'src'), { recursive: true });
    writeFileSync(
      join(app, 'src/next-step.ts'),
      `import { ChatMemoryModule } from 'nest-agent-memory';\nexport const postgres = ${nextStep};\n`,
    );
    run(process.execPath, [join(dir, 'node_modules/typescript7/bin/tsc'), '-p', app], app);
  }, 180_000);

  it('runs the agent on an AI SDK model with an image, and streamText with the middleware (the README examples)', async () => {
    const dir = scratchApp('module', tarball, [
      '@ai-sdk/openai',
      'ai',
      'zod',
      '@nestjs/platform-express',
      // @ai-sdk/provider's types import json-schema's; this test checks every .d.ts (skipLibCheck off).
      '@types/json-schema',
    ]);
    mkdirSync(join(dir, 'src'));
    for (const example of ['vision-agent.module.ts', 'ai-sdk-chat.controller.ts'])
      cpSync(join(ROOT, 'examples', example), join(dir, 'src', example));
    writeFileSync(join(dir, 'src/main.ts'), AI_SDK_APP);
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', dir], dir);
    const llm = new FakeLlmServer();
    const url = await llm.start();
    try {
      llm.enqueue(
        openAiCompletion('A red pixel.'),
        openAiStream(['Hello ', 'Ada.']),
        openAiStream(['You are ', 'Ada.']),
      );
      const output = await runAsync(process.execPath, ['dist/main.js'], dir, {
        OPENAI_BASE_URL: url,
        LLM_MODEL: 'stub',
        SQLITE_PATH: join(dir, 'vision.sqlite'),
      });
      expect(JSON.parse(output)).toEqual({
        reply: 'A red pixel.',
        stored: [
          { type: 'text', text: 'What is in this picture?' },
          { type: 'image', data: PNG, mediaType: 'image/png' },
        ],
        first: 'Hello Ada.',
        second: 'You are Ada.',
      });
      expect(
        (llm.requests[2]!.body.messages as Array<{ role: string }>).map((m) => m.role),
      ).toEqual(['system', 'user', 'assistant', 'user']);
    } finally {
      await llm.stop();
    }
  }, 240_000);

  it('loads with require() and runs a turn in a CommonJS app, and its word-vector rerank', () => {
    // A CommonJS package in a folder of the SQLite-only app: its node_modules, its own module type.
    const dir = join(sqliteOnly, 'cjs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'commonjs' }));
    writeFileSync(join(dir, 'main.js'), CJS_APP);
    const vectors = { work: [1, 0, 0, 0], job: [0.8, 0.6, 0, 1], kitchen: [0, 0, 1, 2] };
    const file = join(dir, 'vectors.json');
    writeFileSync(file, JSON.stringify({ dimensions: 3, words: Object.keys(vectors), vectors }));
    const output = run(process.execPath, ['main.js', join(dir, 'chat.sqlite'), file], dir);
    expect(JSON.parse(output)).toEqual({
      reply: expect.stringContaining('hello'),
      version: 2,
      scores: [0.8, 0],
      missing: 'MissingDriverError',
    });
  }, 120_000);

  it("boots the example app on the Docker image's runtime dependencies alone", async () => {
    const dir = tempDir('runtime-');
    run(process.execPath, [join(ROOT, 'scripts/app-runtime-manifest.mjs'), dir], ROOT);
    run(
      'npm',
      ['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'],
      dir,
    );
    cpSync(join(ROOT, 'dist'), join(dir, 'dist'), { recursive: true });
    const app = await bootApp({ SQLITE_PATH: join(dir, 'app.sqlite') }, join(dir, 'dist/main.js'));
    try {
      const turn = await fetch(`${app.url}/conversations/c1/turns`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ message: 'hello' }),
      });
      expect(turn.status).toBe(201);
      expect((await fetch(`${app.url}/docs-json`)).status).toBe(200);
      expect((await fetch(`${app.url}/`)).status).toBe(200);
    } finally {
      await app.close();
    }
  }, 120_000);
});
