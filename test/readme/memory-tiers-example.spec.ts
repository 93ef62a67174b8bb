import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { MemoryTiersModule } from '../../examples/memory-tiers.module.js';
import {
  AgentService,
  LONGTERM_MEMORY_STORE,
  type LongtermMemoryStore,
  WorkingMemoryService,
} from '../../src/index.js';

describe('README example: MemoryTiersModule (long-term and working memory)', () => {
  let moduleRef: TestingModule;
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({ imports: [MemoryTiersModule] }).compile();
    await moduleRef.init();
  });
  afterAll(() => moduleRef.close());

  it('writes a fact after the turn commits and keeps notes in the scratchpad', async () => {
    const agent = moduleRef.get(AgentService);
    const result = await agent.run({
      conversationId: 'c1',
      entityId: 'ada',
      message: '/tool remember {"key":"name","fact":"Ada"}',
    });
    expect(result.longterm).toEqual({ flushed: 1, refused: 0 });
    const stored = await moduleRef
      .get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE)
      .load('ada', 'facts/name');
    expect(stored?.value).toEqual({ fact: 'Ada' });
    await agent.run({ conversationId: 'c1', message: '/tool jot {"note":"likes tea"}' });
    expect(await moduleRef.get(WorkingMemoryService).for('c1').ring('notes')).toEqual([
      'likes tea',
    ]);
  });
});
