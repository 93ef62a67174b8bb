import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { AssistantModule, TimingFilter } from '../../examples/assistant.module.js';
import { CHAT_MEMORY_STORE, type ChatMemoryStore, KernelService } from '../../src/index.js';

describe('README example: AssistantModule (custom tool and filter)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [AssistantModule] }).compile();
    await moduleRef.init();
  });
  afterAll(() => moduleRef.close());

  it('calls the custom tool through the custom filter and remembers the conversation', async () => {
    const kernel = moduleRef.get(KernelService);
    const context = { conversationId: 'readme-assistant' };
    const result = await kernel.invoke(
      [{ role: 'user', content: '/tool weather {"city":"Paris"}' }],
      { context },
    );
    const toolMessage = result.messages.find((m) => m.role === 'tool')!;
    expect(JSON.parse(toolMessage.content as string)).toMatchObject({ city: 'Paris', celsius: 21 });
    expect(moduleRef.get(TimingFilter).timings.map((line) => line.split(':')[0])).toEqual([
      'model call 0',
      'tool weather',
      'model call 1',
    ]);
    const store = moduleRef.get<ChatMemoryStore>(CHAT_MEMORY_STORE);
    expect(await store.version('readme-assistant')).toBe(4);
  });
});
