import { afterEach } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import type { LongtermMemoryModuleOptions } from '../../src/modules/longterm/longterm.options.js';

/** Three facts of two people, for recall tests. */
export const RECALL_FACTS = [
  ['job', 'Caroline works as a school counselor'],
  ['paint', 'Melanie painted a sunrise over the lake'],
  ['pets', 'Melanie has two cats named Oliver and Bailey'],
] as const;

/**
 * A `boot(options)` that opens `LongtermMemoryModule` (no sweep) and answers its service, and
 * `closeAll()`; every module it opened is closed after each test.
 */
export function recallHarness(): {
  boot(options: LongtermMemoryModuleOptions): Promise<LongtermMemoryService>;
  closeAll(): Promise<void>;
} {
  const opened: TestingModule[] = [];
  const closeAll = async () => {
    await Promise.all(opened.splice(0).map((m) => m.close()));
  };
  afterEach(closeAll);
  return {
    closeAll,
    boot: async (options) => {
      const moduleRef = await Test.createTestingModule({
        imports: [LongtermMemoryModule.forRoot({ sweep: false, ...options })],
      }).compile();
      opened.push(moduleRef);
      await moduleRef.init();
      return moduleRef.get(LongtermMemoryService);
    },
  };
}
