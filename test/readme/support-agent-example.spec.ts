import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { SupportAgentModule, SupportService } from '../../examples/support-agent.module.js';
import { AgentService, CHAT_MEMORY_STORE, type ChatMemoryStore } from '../../src/index.js';
import { waitFor } from '../support/wait-for.js';

describe('README example: SupportAgentModule (memory policy + agent)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [SupportAgentModule] }).compile();
    await moduleRef.init();
  });
  afterAll(() => moduleRef.close());

  it('remembers the conversation across turns, now and queued', async () => {
    const support = moduleRef.get(SupportService);
    await support.ask('ada', 'My order 42 is late.');
    const second = await support.ask('ada', 'Any news?');
    expect(second.reply.content).toBe(
      'You said: "Any news?". Earlier you said: "My order 42 is late.".',
    );
    const { runId } = await support.askLater('ada', 'Thanks!');
    const record = await waitFor(
      () => moduleRef.get(AgentService).getRun(runId),
      (r) => r?.status === 'completed',
    );
    expect(record?.result?.version).toBe(6);
    expect(await moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE).version('support:ada')).toBe(6);
  });
});
