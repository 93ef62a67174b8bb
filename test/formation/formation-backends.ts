import { afterAll, beforeAll } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { TEST_MYSQL_URL, TEST_POSTGRES_URL, TEST_REDIS_URL } from '../support/test-databases.js';

/** Every long-term backend formed memories are tested on, by name and URI. */
export const FORMATION_BACKENDS: Array<[string, string]> = [
  ['memory', 'memory://'],
  ['SQLite', 'sqlite::memory:'],
  ['PostgreSQL', TEST_POSTGRES_URL],
  ['MariaDB', TEST_MYSQL_URL],
  ['Redis', TEST_REDIS_URL],
];

/**
 * A long-term tier on `uri` for the enclosing block (opened before its tests, closed after), and
 * the formed memories on it.
 */
export function formationTier(uri: string): () => {
  longterm: LongtermMemoryService;
  memories: FormedMemories;
} {
  let moduleRef: TestingModule | undefined;
  let tier: { longterm: LongtermMemoryService; memories: FormedMemories } | undefined;
  beforeAll(async () => {
    moduleRef = await Test.createTestingModule({
      imports: [LongtermMemoryModule.forRoot({ uri })],
    }).compile();
    await moduleRef.init();
    const longterm = moduleRef.get(LongtermMemoryService);
    tier = { longterm, memories: new FormedMemories(longterm) };
  });
  afterAll(() => moduleRef?.close());
  return () => tier!;
}
