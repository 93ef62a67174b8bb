import { describe, expect, it } from '@jest/globals';
import { type DynamicModule, Injectable, Module, type Type } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AgentModule } from '../../src/modules/agent/agent.module.js';
import { AgentService } from '../../src/modules/agent/agent.service.js';
import { CHAT_MEMORY_STORE } from '../../src/modules/chat-memory/chat-memory.constants.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import { KernelService } from '../../src/modules/kernel/kernel.service.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { MEMORY_PROVIDER } from '../../src/modules/memory-provider/memory-provider.constants.js';
import { MemoryProviderModule } from '../../src/modules/memory-provider/memory-provider.module.js';
import { SWEEP_SCHEDULER } from '../../src/modules/sweeper/sweeper.constants.js';
import { SweeperModule } from '../../src/modules/sweeper/sweeper.module.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import { WorkingMemoryService } from '../../src/modules/working-memory/working-memory.service.js';

/**
 * Every forRoot module is built the same way (ConfigurableModuleBuilder), so each takes the three
 * async forms: useFactory + inject, useClass, useExisting. For each module: its async forRoot, the
 * factory method its options class implements, options that work offline, and what to resolve.
 */
interface Case {
  module: { forRootAsync(options: object): DynamicModule };
  factoryMethod: string;
  options: () => object;
  /** Modules the case needs beside it (e.g. a chat store for a memory provider). */
  alongside?: () => DynamicModule[];
  resolves: unknown;
  /** Checks the options reached the module (when resolving alone would not tell). */
  verify?: (resolved: never) => void;
}

const echo = { provider: 'echo' as const };
const chatStore = () => [ChatMemoryModule.forRoot({ backend: 'memory' })];
const cases: Record<string, Case> = {
  ChatMemoryModule: {
    module: ChatMemoryModule,
    factoryMethod: 'createChatMemoryOptions',
    options: () => ({ backend: 'memory' }),
    resolves: CHAT_MEMORY_STORE,
  },
  MemoryProviderModule: {
    module: MemoryProviderModule,
    factoryMethod: 'createMemoryProviderOptions',
    options: () => ({ policy: 'window', window: 4 }),
    alongside: chatStore,
    resolves: MEMORY_PROVIDER,
  },
  KernelModule: {
    module: KernelModule,
    factoryMethod: 'createKernelOptions',
    options: () => ({ llm: echo }),
    resolves: KernelService,
  },
  AgentModule: {
    module: AgentModule,
    factoryMethod: 'createAgentOptions',
    options: () => ({ llm: echo }),
    alongside: chatStore,
    resolves: AgentService,
  },
  LongtermMemoryModule: {
    module: LongtermMemoryModule,
    factoryMethod: 'createLongtermMemoryOptions',
    options: () => ({ uri: 'memory://', sweep: false }),
    resolves: LongtermMemoryService,
    verify: (service: LongtermMemoryService) => expect(service.enabled).toBe(true),
  },
  WorkingMemoryModule: {
    module: WorkingMemoryModule,
    factoryMethod: 'createWorkingMemoryOptions',
    options: () => ({ backend: 'memory', sweep: false }),
    resolves: WorkingMemoryService,
  },
  SweeperModule: {
    module: SweeperModule,
    factoryMethod: 'createSweeperOptions',
    options: () => ({ driver: 'interval' }),
    resolves: SWEEP_SCHEDULER,
  },
};

/** A class implementing the case's options factory method. */
function optionsClass(testCase: Case): Type {
  @Injectable()
  class Options {}
  Object.defineProperty(Options.prototype, testCase.factoryMethod, {
    value: () => testCase.options(),
  });
  return Options;
}

async function boots(testCase: Case, forRoot: DynamicModule, imports: DynamicModule[] = []) {
  const moduleRef = await Test.createTestingModule({
    imports: [...(testCase.alongside?.() ?? []), ...imports, forRoot],
  }).compile();
  await moduleRef.init();
  try {
    const resolved = moduleRef.get(testCase.resolves as never);
    expect(resolved).toBeDefined();
    testCase.verify?.(resolved as never);
  } finally {
    await moduleRef.close();
  }
}

describe.each(Object.entries(cases))('%s.forRootAsync', (_name, testCase) => {
  it('takes useFactory with inject', async () => {
    @Injectable()
    class Settings {
      readonly options = testCase.options();
    }
    @Module({ providers: [Settings], exports: [Settings] })
    class SettingsModule {}
    await boots(
      testCase,
      testCase.module.forRootAsync({
        imports: [SettingsModule],
        inject: [Settings],
        useFactory: (settings: Settings) => settings.options,
      }),
    );
  });

  it('takes useClass', async () => {
    await boots(testCase, testCase.module.forRootAsync({ useClass: optionsClass(testCase) }));
  });

  it('takes useExisting', async () => {
    const Options = optionsClass(testCase);
    @Module({ providers: [Options], exports: [Options] })
    class OptionsModule {}
    await boots(
      testCase,
      testCase.module.forRootAsync({ imports: [OptionsModule], useExisting: Options }),
    );
  });
});
