import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { readFileSync } from 'node:fs';
import { AgentMemoryExceptionFilter } from 'nest-agent-memory';
import { tempDir } from '../support/test-databases.js';

const guide = readFileSync(new URL('../../docs/getting-started.md', import.meta.url), 'utf8');

describe('docs/getting-started.md, step 3', () => {
  let app: INestApplication;
  const cwd = process.cwd();
  beforeAll(async () => {
    // The guide's app writes chat.sqlite where it runs: here, a folder of its own.
    process.chdir(tempDir('getting-started-'));
    const { AppModule } = await import('../../examples/getting-started/app.module.js');
    const moduleRef = await Test.createTestingModule({ imports: [AppModule] }).compile();
    app = moduleRef.createNestApplication({ logger: false });
    app.useGlobalFilters(new AgentMemoryExceptionFilter());
    await app.listen(0, '127.0.0.1');
  });
  afterAll(async () => {
    await app?.close();
    process.chdir(cwd);
  });

  it('answers each curl of the guide with what the guide shows', async () => {
    const shown = [...guide.matchAll(/-d '(\{[^']*\})'\n# (\{.*\})/g)].map((m) => ({
      body: m[1]!,
      answer: JSON.parse(m[2]!) as unknown,
    }));
    expect(shown).toHaveLength(3);
    for (const { body, answer } of shown) {
      const response = await fetch(`${await app.getUrl()}/chats/c1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(await response.json()).toEqual(answer);
    }
    const history = (await (await fetch(`${await app.getUrl()}/chats/c1`)).json()) as unknown[];
    expect(history).toHaveLength(4);
  });

  it('answers a body without a message with a 400 that says the message is required', async () => {
    const response = await fetch(`${await app.getUrl()}/chats/c2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { message: string }).message).toMatch(
      /^Invalid message: required \(a text, an array of parts, or a user message/,
    );
  });
});
