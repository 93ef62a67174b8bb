import { describe, expect, it } from '@jest/globals';
import { Test } from '@nestjs/testing';
import { AgentMemoryCheckpointSaver } from '../../src/modules/langgraph/agent-memory-checkpoint-saver.js';
import { AgentMemoryStore } from '../../src/modules/langgraph/agent-memory-store.js';
import {
  LangGraphModule,
  type LangGraphModuleOptions,
} from '../../src/modules/langgraph/langgraph.module.js';

async function boot(options: unknown) {
  const app = await Test.createTestingModule({
    imports: [LangGraphModule.forRoot(options as LangGraphModuleOptions)],
  }).compile();
  await app.init();
  return app;
}

describe('LangGraphModule options', () => {
  it('refuses a misspelt option, naming it and the one meant', async () => {
    await expect(boot({ uri: 'memory://', stor: false })).rejects.toThrow(/stor.*store/s);
    await expect(boot({ uri: 'memory://', store: { entityPart: 1 } })).rejects.toThrow(
      /store\.entityPart.*entityParts/s,
    );
    await expect(boot({ uri: 'memory://', store: { entityParts: -1 } })).rejects.toThrow(
      /store\.entityParts/,
    );
  });

  it('refuses a bad uri, and a store without long-term memory, saying what to do', async () => {
    await expect(boot({ uri: 'nosuch://x', store: false })).rejects.toThrow(/LangGraphModule/);
    await expect(boot({ uri: 'memory://' })).rejects.toThrow(
      /add LongtermMemoryModule\.forRoot\(\{ uri \}\).*or pass store: false/,
    );
  });

  it('provides the checkpointer alone with store: false', async () => {
    const app = await boot({ uri: 'memory://', store: false });
    expect(app.get(AgentMemoryCheckpointSaver)).toBeInstanceOf(AgentMemoryCheckpointSaver);
    expect(app.get(AgentMemoryStore)).toBeNull();
    await app.close();
  });
});
