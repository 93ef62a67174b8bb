import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { setTimeout as sleep } from 'node:timers/promises';
import { scriptedFormationModel } from '../../examples/scripted-formation-model.js';
import {
  AgentModule,
  AgentService,
  ChatMemoryModule,
  FormedMemories,
  LongtermMemoryModule,
  LongtermMemoryService,
} from '../../src/index.js';

describe('guide example: scriptedFormationModel (a formation model for tests)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [
        ChatMemoryModule.forRoot({ backend: 'memory' }),
        LongtermMemoryModule.forRoot({ uri: 'memory://' }),
        AgentModule.forRoot({
          llm: { provider: 'echo' },
          formation: { model: { model: scriptedFormationModel('The user keeps bees') } },
        }),
      ],
    }).compile();
    await moduleRef.init();
  });
  afterAll(() => moduleRef?.close());

  it('forms the memory it scripts, resting on the turn’s user message', async () => {
    await moduleRef
      .get(AgentService)
      .run({ conversationId: 'c1', entityId: 'ada', message: 'I have three hives.' });
    const memories = new FormedMemories(moduleRef.get(LongtermMemoryService));
    let formed: Awaited<ReturnType<FormedMemories['list']>>['memories'] = [];
    for (let i = 0; i < 200 && formed.length === 0; i += 1) {
      if (i > 0) await sleep(25);
      formed = (await memories.list('ada', { limit: 10 })).memories;
    }
    expect(formed).toMatchObject([
      { text: 'The user keeps bees', kind: 'fact', sources: [{ conversationId: 'c1' }] },
    ]);
    expect(formed[0]!.sources[0]!.messageIds).toHaveLength(1);
  });
});
