import { describe, expect, it } from '@jest/globals';
import type { DynamicModule } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { AgentModule } from '../../src/modules/agent/agent.module.js';
import { ChatMemoryModule } from '../../src/modules/chat-memory/chat-memory.module.js';
import { KernelModule } from '../../src/modules/kernel/kernel.module.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { MemoryProviderModule } from '../../src/modules/memory-provider/memory-provider.module.js';
import { SweeperModule } from '../../src/modules/sweeper/sweeper.module.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { TEST_REDIS_URL } from '../support/test-databases.js';

const echo = { provider: 'echo' as const };
/** A typo in each forRoot module, and what the error must say. */
const typos: Array<[string, string, () => DynamicModule[], string]> = [
  [
    'ChatMemoryModule',
    'migrationRun',
    () => [
      ChatMemoryModule.forRoot({
        backend: 'sqlite',
        path: ':memory:',
        migrationRun: false,
      } as never),
    ],
    'did you mean "migrationsRun"?',
  ],
  [
    'ChatMemoryModule',
    'isglobal',
    () => [ChatMemoryModule.forRoot({ backend: 'memory', isglobal: true } as never)],
    'did you mean "isGlobal"?',
  ],
  [
    'ChatMemoryModule',
    'url',
    () => [ChatMemoryModule.forRoot({ backend: 'memory', url: 'x' } as never)],
    '"backend"',
  ],
  [
    'KernelModule',
    'maxToolIteration',
    () => [KernelModule.forRoot({ llm: echo, maxToolIteration: 3 } as never)],
    'did you mean "maxToolIterations"?',
  ],
  [
    'KernelModule',
    'llm.scrpt',
    () => [KernelModule.forRoot({ llm: { ...echo, scrpt: [] } } as never)],
    'did you mean "llm.script"?',
  ],
  [
    'MemoryProviderModule',
    'windw',
    () => [
      ChatMemoryModule.forRoot({ backend: 'memory' }),
      MemoryProviderModule.forRoot({ policy: 'window', windw: 3 } as never),
    ],
    'did you mean "window"?',
  ],
  [
    'LongtermMemoryModule',
    'url',
    () => [LongtermMemoryModule.forRoot({ url: 'memory://' } as never)],
    'did you mean "uri"?',
  ],
  [
    'WorkingMemoryModule',
    'capByte',
    () => [WorkingMemoryModule.forRoot({ backend: 'memory', capByte: 1 } as never)],
    'did you mean "capBytes"?',
  ],
  [
    'SweeperModule',
    'prefx',
    () => [
      SweeperModule.forRoot({ driver: 'bull', redisUrl: TEST_REDIS_URL, prefx: 'x' } as never),
    ],
    'did you mean "prefix"?',
  ],
  [
    'AgentModule',
    'systemPromt',
    () => [AgentModule.forRoot({ llm: echo, systemPromt: 'Be brief.' } as never)],
    'did you mean "systemPrompt"?',
  ],
];

describe('every forRoot module refuses unknown option keys at bootstrap', () => {
  it.each(typos)('%s: "%s"', async (moduleName, option, imports, hint) => {
    const error = await rejectionOf(
      (async () => {
        const moduleRef = await Test.createTestingModule({ imports: imports() }).compile();
        await moduleRef.init();
        await moduleRef.close();
      })(),
    );
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error).toMatchObject({ moduleName, option });
    expect((error as Error).message).toContain(hint);
  });

  it('checks options from forRootAsync factories the same way', async () => {
    const error = await rejectionOf(
      Test.createTestingModule({
        imports: [
          LongtermMemoryModule.forRootAsync({ useFactory: () => ({ url: 'memory://' }) as never }),
        ],
      }).compile(),
    );
    expect(error).toMatchObject({ moduleName: 'LongtermMemoryModule', option: 'url' });
  });
});
