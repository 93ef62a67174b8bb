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
    expect(store.reads).toBe(1); // no per-run read; the earlier versions' index, empty
  });

  it('merges the runs an earlier version indexed unordered, in time order, each once', async () => {
    let now = 1_000;
    const store = new InMemoryRunStore(undefined, () => now);
    const ownership = new RunOwnership(store, () => now);
    const digest = createHash('sha256').update('old').digest('base64url');
    /** What the earlier version wrote: the owner, the unordered index entry, the record. */
    const legacy = async (runId: string, createdAt: number) => {
      await store.putIfAbsent(runId, 'conversation', 'old');
      await store.addToIndex(`#c:${digest}`, runId);
      await store.put(runId, 'status', JSON.stringify({ runId, createdAt }));
    };
    const fresh = async (runId: string, at: number) => {
      now = at;
      await ownership.claim(runId, 'old');
      await store.put(runId, 'status', JSON.stringify({ runId, createdAt: at }));
    };
    // A rolling upgrade: old and new instances take turns.
    await legacy('legacy-1', 1_000);
    await fresh('new-1', 2_000);
    await legacy('legacy-2', 3_000);
    await fresh('new-2', 4_000);
    const order = ['new-2', 'legacy-2', 'new-1', 'legacy-1'];
    const seen: string[] = [];
    let before: { runId: string; at: number } | undefined;
    for (let round = 0; round < 5; round += 1) {
      const page = await ownership.page('old', 2, before);
      seen.push(...page.map((entry) => entry.runId));
      if (page.length < 2) break;
      before = page.at(-1);
    }
    expect(seen).toEqual(order);
    // A legacy run claimed again (its key resent) keeps its place.
    now = 9_000;
    await ownership.claim('legacy-1', 'old');
    expect((await ownership.page('old', 10)).map((entry) => entry.runId)).toEqual(order);
    await ownership.forgetConversation('old');
    expect(await ownership.page('old', 5)).toEqual([]);
    expect(await store.get('legacy-1', 'status')).toBeUndefined();
  });
});
