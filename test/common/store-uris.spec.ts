import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { join } from 'node:path';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import type { ChatMemoryStore } from '../../src/modules/chat-memory/interfaces/chat-memory-store.interface.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { type AgentHarness, bootAgent } from '../support/agent-harness.js';
import { ScriptedLlm } from '../support/scripted-llm.js';
import { TEST_POSTGRES_URL, TEST_REDIS_URL, tempDir } from '../support/test-databases.js';

const opened: Array<TestingModule | AgentHarness> = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});

async function chatStore(options: object): Promise<ChatMemoryStore> {
  const moduleRef = await Test.createTestingModule({
    imports: [ChatMemoryModule.forRoot(options as never)],
  }).compile();
  opened.push(moduleRef);
  await moduleRef.init();
  return moduleRef.get(CHAT_MEMORY_STORE);
}

describe('every store module takes a URI as well as backend options', () => {
  it.each([
    ['memory://'],
    ['sqlite::memory:'],
    [`sqlite:${join(tempDir(), 'uri.sqlite')}`],
    [TEST_POSTGRES_URL],
    [TEST_REDIS_URL],
  ])('ChatMemoryModule.forRoot({ uri: %j })', async (uri) => {
    const store = await chatStore({
      uri,
      ...(uri.startsWith('redis') ? { keyPrefix: 'test:uri:' } : {}),
    });
    const conversationId = `uri-${Date.now()}`;
    await store.add(conversationId, [{ role: 'user', content: 'hi' }]);
    expect(await store.version(conversationId)).toBe(1);
    await store.clear(conversationId);
  });

  it.each([
    [{ uri: 'ftp://host/x' }, 'uri', 'unknown scheme'],
    [{ uri: 'sqlite::memory:', backend: 'sqlite' }, 'uri', 'not both'],
    [{ uri: 'memory://', keyPrefix: 'x' }, 'keyPrefix', 'not an option'],
  ])('refuses %j naming %s', async (options, option, hint) => {
    const error = await rejectionOf(chatStore(options));
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error).toMatchObject({ option });
    expect((error as Error).message).toContain(hint);
  });

  it('AgentModule runs: { uri } keeps run records where it says', async () => {
    const path = join(tempDir(), 'runs-by-uri.sqlite');
    const boot = async () => {
      const harness = await bootAgent(
        { llm: new ScriptedLlm([{ content: 'ok' }]), runs: { uri: `sqlite:${path}` } },
        [ChatMemoryModule.forRoot({ uri: 'memory://' })],
      );
      opened.push(harness);
      return harness;
    };
    const first = await boot();
    await first.agent.run({ conversationId: 'c', message: 'hi', runId: 'by-uri' });
    await first.close();
    opened.splice(opened.indexOf(first), 1);
    const second = await boot();
    expect(await second.agent.getRun('by-uri')).toMatchObject({ status: 'completed' });
    expect(second.agent.runsVisibility).toBe('shared');
  });
});
