import { afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { AgentRunsOptions } from '../../src/modules/agent/agent.options.js';
import { TEST_REDIS_URL, tempDir } from '../support/test-databases.js';
import {
  TITLE_INSTRUCTIONS,
  cleanTitle,
} from '../../src/modules/agent/conversations/conversation-titler.js';
import type {
  LlmAdapter,
  LlmRequest,
  LlmResponse,
} from '../../src/modules/llm/interfaces/llm.interface.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { waitFor } from '../support/wait-for.js';
import { setTimeout as sleep } from 'node:timers/promises';

/** A model whose answers are given one at a time: a title request can be held back. */
class GatedLlm implements LlmAdapter {
  readonly requests: LlmRequest[] = [];
  private readonly answers: Array<{ text?: string; fail?: Error; gate?: Promise<void> }> = [];

  answer(text: string, gate?: Promise<void>): this {
    this.answers.push({ text, ...(gate ? { gate } : {}) });
    return this;
  }

  fail(error: Error): this {
    this.answers.push({ fail: error });
    return this;
  }

  async stream(request: LlmRequest, onToken: (token: string) => void): Promise<LlmResponse> {
    const response = await this.chat(request);
    onToken(response.message.content as string);
    return response;
  }

  async chat(request: LlmRequest): Promise<LlmResponse> {
    this.requests.push(request);
    const next = this.answers.shift();
    if (!next) throw new Error('GatedLlm: no answer left');
    await next.gate;
    if (next.fail) throw next.fail;
    return {
      message: { role: 'assistant', content: next.text! },
      usage: { promptTokens: 1, completionTokens: 1, totalTokens: 2 },
    };
  }
}

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Where the runs and the directory live: each backend's `update` and `touch` play a part. */
const RUNS: Array<[string, () => AgentRunsOptions]> = [
  ['memory', () => ({ backend: 'memory' })],
  ['SQLite', () => ({ backend: 'sqlite', path: join(tempDir(), 'runs.sqlite') })],
  [
    'Redis',
    () => ({ backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `test:titles:${randomUUID()}:` }),
  ],
];
let runs: () => AgentRunsOptions = RUNS[0]![1];

async function agentWith(llm: GatedLlm, titles?: 'first-message' | 'model') {
  harness = await bootAgent({ llm, tools: [], runs: runs(), ...(titles ? { titles } : {}) });
  return harness.agent;
}

const listed = async (agent: AgentHarness['agent'], id: string) =>
  (await agent.conversations('t', { limit: 10 })).conversations.find(
    (listing) => listing.conversationId === id,
  );

it('cleans a model answer into a one-line title', () => {
  expect(cleanTitle('"Trip to Lisbon."\n')).toBe('Trip to Lisbon');
  expect(cleanTitle('\n\nTitle: **Planning a move**\nMore text')).toBe('Planning a move');
  expect(Array.from(cleanTitle('word '.repeat(40))).length).toBeLessThanOrEqual(80);
  expect(cleanTitle('  ')).toBe('');
});

describe.each(RUNS)('conversation titles (runs on %s)', (_name, options) => {
  beforeAll(() => {
    runs = options;
  });

  it('takes the first message by default, with one model call per turn', async () => {
    const llm = new GatedLlm().answer('Sure.').answer('Again.');
    const agent = await agentWith(llm);
    await agent.run({ conversationId: 't/a', message: 'Plan a trip to Lisbon' });
    await agent.run({ conversationId: 't/a', message: 'And Porto?' });
    expect(llm.requests).toHaveLength(2);
    expect(await listed(agent, 't/a')).toMatchObject({
      title: 'Plan a trip to Lisbon',
      preview: 'And Porto?',
    });
  });

  it("with titles: 'model', asks the model once, after the first turn, without tools", async () => {
    const llm = new GatedLlm()
      .answer('Here is a plan for Lisbon.')
      .answer('"Lisbon trip plan."')
      .answer('Porto too.');
    const agent = await agentWith(llm, 'model');
    await agent.run({ conversationId: 't/b', message: 'Plan a trip to Lisbon' });
    await waitFor(
      () => listed(agent, 't/b'),
      (l) => l?.title === 'Lisbon trip plan',
    );
    const request = llm.requests[1]!;
    expect(request.tools ?? []).toEqual([]);
    expect(request.messages[0]).toMatchObject({ role: 'system', content: TITLE_INSTRUCTIONS });
    expect(request.messages.at(-1)!.content).toBe(
      'User: Plan a trip to Lisbon\nAssistant: Here is a plan for Lisbon.',
    );
    await agent.run({ conversationId: 't/b', message: 'And Porto?' });
    expect(llm.requests).toHaveLength(3);
    expect(await listed(agent, 't/b')).toMatchObject({
      title: 'Lisbon trip plan',
      preview: 'And Porto?',
    });
  });

  it('keeps a rename made while the model writes the title', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const llm = new GatedLlm().answer('Hello.').answer('Model title', gate);
    const agent = await agentWith(llm, 'model');
    await agent.run({ conversationId: 't/c', message: 'Hi there' });
    // Before the model's title: no title yet (the page shows the preview).
    expect((await listed(agent, 't/c'))?.title).toBeUndefined();
    await agent.updateConversation('t/c', { title: 'My own name' });
    release();
    await waitFor(
      async () => llm.requests.length,
      (n) => n === 2,
    );
    await sleep(200);
    expect((await listed(agent, 't/c'))?.title).toBe('My own name');
  });

  it('leaves a conversation deleted while the model writes its title deleted', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const llm = new GatedLlm().answer('Hello.').answer('Model title', gate);
    const agent = await agentWith(llm, 'model');
    await agent.run({ conversationId: 't/e', message: 'Hi there' });
    await agent.clearConversation('t/e');
    release();
    await waitFor(
      async () => llm.requests.length,
      (n) => n === 2,
    );
    await sleep(200);
    expect(await listed(agent, 't/e')).toBeUndefined();
  });

  it('falls back to the first message when the title call fails', async () => {
    const llm = new GatedLlm().answer('Hello.').fail(new Error('model down'));
    const agent = await agentWith(llm, 'model');
    await agent.run({ conversationId: 't/d', message: 'What is a monad?' });
    await waitFor(
      () => listed(agent, 't/d'),
      (l) => l?.title === 'What is a monad?',
    );
  });

  it('refuses an unknown titles option at bootstrap', async () => {
    await expect(
      bootAgent({ llm: new GatedLlm(), titles: 'llm' as unknown as 'model' }),
    ).rejects.toThrow(/titles/);
  });
});
