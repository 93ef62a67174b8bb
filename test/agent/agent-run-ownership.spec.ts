import { afterEach, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { RunBelongsToAnotherConversationError } from '../../src/modules/agent/errors/agent.errors.js';
import type { AgentRunsOptions } from '../../src/modules/agent/agent.options.js';
import { InMemoryRunStore } from '../../src/modules/agent/runs/in-memory.run-store.js';
import { RunOwnership } from '../../src/modules/agent/runs/run-ownership.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { LlmResponseError } from '../../src/modules/llm/llm-errors.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

describe('a run id belongs to one conversation', () => {
  it('refuses another conversation’s run id and never hands out its result', async () => {
    const llm = new ScriptedLlm([{ content: 'Your order ships Monday.' }, { content: 'x' }]);
    harness = await bootAgent({ llm }, [ChatMemoryModule.forRoot({ backend: 'memory' })]);
    const runId = unique('order-42');
    const alice = unique('alice');
    await harness.agent.run({ conversationId: alice, message: 'where is my order?', runId });
    const error = await rejectionOf(
      harness.agent.run({ conversationId: unique('mallory'), message: 'hi', runId }),
    );
    expect(error).toBeInstanceOf(RunBelongsToAnotherConversationError);
    expect((error as Error).message).not.toContain(alice);
    expect((error as Error).message).not.toContain('ships Monday');
    expect(
      await rejectionOf(
        harness.agent.submit({ conversationId: unique('m2'), message: 'hi', runId }),
      ),
    ).toBeInstanceOf(RunBelongsToAnotherConversationError);
  });

  it('keeps a failed run for its own conversation: a reuse elsewhere is refused, the retry lands', async () => {
    const llm = new ScriptedLlm([
      { fail: new LlmResponseError('test', 503, 'down') },
      { content: 'retried answer' },
    ]);
    harness = await bootAgent({ llm }, [ChatMemoryModule.forRoot({ backend: 'memory' })]);
    const runId = unique('r');
    const alice = unique('alice');
    await rejectionOf(harness.agent.run({ conversationId: alice, message: 'q', runId }));
    expect(
      await rejectionOf(
        harness.agent.run({ conversationId: unique('mallory'), message: 'm', runId }),
      ),
    ).toBeInstanceOf(RunBelongsToAnotherConversationError);
    const result = await harness.agent.run({ conversationId: alice, message: 'q', runId });
    expect(result.reply.content).toBe('retried answer');
    expect(result.conversationId).toBe(alice);
  });

  it('validates a queued run’s message when it is submitted, not later in a worker', async () => {
    harness = await bootAgent({ llm: new ScriptedLlm([]) }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    for (const message of [
      { role: 'assistant', content: 'hi' },
      { role: 'user', content: '' },
      { role: 'user', content: 'a\u0000b' },
    ])
      expect(
        await rejectionOf(harness.agent.submit({ conversationId: 'c', message: message as never })),
      ).toBeInstanceOf(InvalidArgumentError);
  });

  it.each(['', 'a b', 'x'.repeat(201), '#index', 'a/b', 'ü'])(
    'refuses the run id %j',
    async (runId) => {
      harness = await bootAgent({ llm: new ScriptedLlm([{ content: 'x' }]) }, [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
      ]);
      const error = await rejectionOf(
        harness.agent.run({ conversationId: 'c', message: 'hi', runId }),
      );
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect((error as Error).message).toContain('runId');
    },
  );
});

const sqlitePath = join(tempDir(), 'run-ownership.sqlite');
const runStores: Array<[string, AgentRunsOptions]> = [
  ['memory', { backend: 'memory' }],
  ['sqlite', { backend: 'sqlite', path: sqlitePath }],
  ['postgres', { backend: 'postgres', url: TEST_POSTGRES_URL }],
  ['mysql', { backend: 'mysql', url: TEST_MYSQL_URL }],
  ['redis', { backend: 'redis', url: TEST_REDIS_URL, keyPrefix: 'test:run-ownership:' }],
];

describe.each(runStores)('a cleared conversation leaves no run behind (%s)', (_name, runs) => {
  it('clearConversation removes the history, the run records and the cached steps', async () => {
    const llm = new ScriptedLlm([{ content: 'first' }, { content: 'second' }]);
    harness = await bootAgent({ llm, runs }, [ChatMemoryModule.forRoot({ backend: 'memory' })]);
    const conversationId = unique('clear');
    const runId = unique('run');
    await harness.agent.run({ conversationId, message: 'hello', runId });
    expect(await harness.agent.getRun(runId)).toMatchObject({ status: 'completed' });
    await harness.agent.clearConversation(conversationId);
    expect(await harness.agent.getRun(runId)).toBeUndefined();
    // No cached step survives: the same run id runs afresh (the model is asked again).
    const again = await harness.agent.run({ conversationId, message: 'hello', runId });
    expect(again.reply.content).toBe('second');
    expect(again.version).toBe(2);
  });

  it('eraseEntity removes the runs made for the entity', async () => {
    const llm = new ScriptedLlm([{ content: 'a' }, { content: 'b' }]);
    harness = await bootAgent({ llm, runs }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      LongtermMemoryModule.forRoot({ uri: 'memory://' }),
    ]);
    const entityId = unique('entity');
    const [mine, other] = [unique('run'), unique('run')];
    await harness.agent.run({ conversationId: unique('c'), entityId, message: 'x', runId: mine });
    await harness.agent.run({ conversationId: unique('c'), message: 'y', runId: other });
    await harness.agent.eraseEntity(entityId);
    expect(await harness.agent.getRun(mine)).toBeUndefined();
    expect(await harness.agent.getRun(other)).toMatchObject({ status: 'completed' });
  });
});

describe('the in-memory run store is bounded', () => {
  it('keeps indexes apart from the runs it counts, and drops expired index entries', async () => {
    let now = 0;
    const store = new InMemoryRunStore(1_000, () => now, 2);
    const ownership = new RunOwnership(store);
    await ownership.claim('r1', 'c', 'e');
    await ownership.claim('r2', 'c', 'e');
    expect(await store.get('r1', 'conversation')).toBe('c');
    expect(await store.get('r2', 'conversation')).toBe('c');
    now = 1_500;
    await ownership.claim('r3', 'c');
    await ownership.forgetConversation('c');
    expect(await store.get('r3', 'conversation')).toBeUndefined();
    expect(await store.indexed('#anything')).toEqual([]);
  });

  it('keeps at most maxRuns runs, dropping the least recently written', async () => {
    const store = new InMemoryRunStore(60_000, Date.now, 3);
    for (const runId of ['a', 'b', 'c']) await store.put(runId, 'status', runId);
    await store.put('a', 'status', 'a2');
    await store.put('d', 'status', 'd');
    expect(await store.get('b', 'status')).toBeUndefined();
    expect(await Promise.all(['a', 'c', 'd'].map((id) => store.get(id, 'status')))).toEqual([
      'a2',
      'c',
      'd',
    ]);
  });
});
