import { afterEach, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { AgentRunsOptions } from '../../src/modules/agent/agent.options.js';
import { InMemoryRunStore } from '../../src/modules/agent/runs/in-memory.run-store.js';
import { RunOwnership } from '../../src/modules/agent/runs/run-ownership.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from '../support/test-databases.js';

let harness: AgentHarness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;

const backends: Array<[string, () => AgentRunsOptions]> = [
  ['memory', () => ({ backend: 'memory' })],
  ['sqlite', () => ({ backend: 'sqlite', path: join(tempDir(), 'runs-page.sqlite') })],
  ['postgres', () => ({ backend: 'postgres', url: TEST_POSTGRES_URL })],
  ['redis', () => ({ backend: 'redis', url: TEST_REDIS_URL, keyPrefix: `${unique('t')}:runs:` })],
];

describe.each(backends)('a conversation’s runs on %s', (_name, runs) => {
  it('pages newest first with the last record as cursor, each run once', async () => {
    const llm = new ScriptedLlm(Array.from({ length: 7 }, (_, i) => ({ content: `a${i}` })));
    harness = await bootAgent({ llm, runs: runs() }, [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
    ]);
    const conversationId = unique('c');
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const runId = unique(`r${i}`);
      await harness.agent.run({ conversationId, message: `q${i}`, runId });
      made.push(runId);
    }
    const seen: string[] = [];
    let after: { createdAt: number; runId: string } | undefined;
    for (let page = 0; page < 10; page += 1) {
      const records = await harness.agent.runsOf(conversationId, {
        limit: 3,
        ...(after ? { after } : {}),
      });
      seen.push(...records.map((record) => record.runId));
      if (records.length < 3) break;
      after = { createdAt: records.at(-1)!.createdAt, runId: records.at(-1)!.runId };
    }
    expect(seen).toEqual([...made].reverse());
    await harness.agent.clearConversation(conversationId);
    expect(await harness.agent.runsOf(conversationId, { limit: 3 })).toEqual([]);
  });
});

describe('the ordered run index', () => {
  /** A store that counts the run reads a page makes. */
  class CountingStore extends InMemoryRunStore {
    reads = 0;
    override async get(runId: string, key: string) {
      this.reads += 1;
      return super.get(runId, key);
    }
    override async indexed(index: string) {
      this.reads += 1;
      return super.indexed(index);
    }
  }

  it('reads one index page however many runs the conversation has', async () => {
    const store = new CountingStore();
    const ownership = new RunOwnership(store);
    for (let i = 0; i < 500; i += 1) {
      await ownership.claim(`run-${i}`, 'busy');
      await store.put(`run-${i}`, 'status', '{}');
    }
    store.reads = 0;
    const page = await ownership.page('busy', 2);
    expect(page.map((entry) => entry.runId)).toEqual(['run-499', 'run-498']);
    expect(store.reads).toBe(0); // no per-run read, no unordered index read
  });

  it('lists runs an earlier version indexed unordered, after the others, until they expire', async () => {
    const store = new InMemoryRunStore();
    const ownership = new RunOwnership(store);
    const digest = createHash('sha256').update('old').digest('base64url');
    // What the earlier version wrote: the owner, the unordered index entry, the record.
    for (const [runId, createdAt] of [
      ['legacy-1', 1_000],
      ['legacy-2', 2_000],
    ] as const) {
      await store.putIfAbsent(runId, 'conversation', 'old');
      await store.addToIndex(`#c:${digest}`, runId);
      await store.put(runId, 'status', JSON.stringify({ runId, createdAt }));
    }
    await ownership.claim('new-1', 'old');
    await store.put('new-1', 'status', '{}');
    const first = await ownership.page('old', 2);
    expect(first.map((entry) => entry.runId)).toEqual(['new-1', 'legacy-2']);
    const rest = await ownership.page('old', 2, first.at(-1));
    expect(rest).toEqual([{ runId: 'legacy-1', at: 1_000 }]);
    await ownership.forgetConversation('old');
    expect(await ownership.page('old', 5)).toEqual([]);
    expect(await store.get('legacy-1', 'status')).toBeUndefined();
  });
});
