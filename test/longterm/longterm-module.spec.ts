import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { join } from 'node:path';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { LongtermMemoryDisabledError } from '../../src/modules/longterm/errors/longterm.errors.js';
import type { LongtermMemoryStore } from '../../src/modules/longterm/interfaces/longterm-store.interface.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LONGTERM_MEMORY_STORE } from '../../src/modules/longterm/longterm.constants.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import type { LongtermMemoryModuleOptions } from '../../src/modules/longterm/longterm.options.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';

const opened: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});

async function boot(options: LongtermMemoryModuleOptions): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [LongtermMemoryModule.forRoot(options)],
  }).compile();
  opened.push(moduleRef);
  await moduleRef.init();
  return moduleRef;
}

describe('LongtermMemoryModule', () => {
  const uris: Array<[string, string]> = [
    ['memory', 'memory://'],
    ['sqlite file', `sqlite:${join(tempDir(), 'lt.sqlite')}`],
    ['sqlite memory', 'sqlite::memory:'],
    ['postgres', TEST_POSTGRES_URL],
    ['postgresql', TEST_POSTGRES_URL.replace('postgres://', 'postgresql://')],
    ['mysql', TEST_MYSQL_URL],
    ['redis', TEST_REDIS_URL],
  ];
  for (const [label, uri] of uris) {
    it(`opens the tier for ${label} URIs, with durable per-entity seq counters`, async () => {
      const moduleRef = await boot({ uri, keyPrefix: 'test:lt-module:' });
      const service = moduleRef.get(LongtermMemoryService);
      expect(service.enabled).toBe(true);
      const entity = `module-${Math.random().toString(36).slice(2)}`;
      const seqs = await Promise.all(Array.from({ length: 5 }, () => service.nextSeq(entity)));
      expect([...seqs].sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
      const store = moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE);
      await store.save({ entityId: entity, key: 'k', value: { ok: true }, seq: 1 });
      expect((await service.store.load(entity, 'k'))?.value).toEqual({ ok: true });
      await store.deleteEntity(entity);
    });
  }

  it('fails bootstrap on a malformed URI, naming the option and the grammar, before loading any driver', async () => {
    for (const uri of ['sqlite:', 'ftp://host/x', 'not a uri', 'postgres://', 'mongodb://h/db']) {
      const error = await rejectionOf(
        Test.createTestingModule({ imports: [LongtermMemoryModule.forRoot({ uri })] }).compile(),
      );
      expect(error).toBeInstanceOf(InvalidModuleOptionsError);
      expect((error as Error).message).toContain('uri');
      expect((error as Error).message).toContain('memory:// | sqlite:<path>');
    }
  });

  it('is off without a URI: nothing opened, every use throws LongtermMemoryDisabledError', async () => {
    for (const options of [{}, { uri: '' }]) {
      const moduleRef = await boot(options);
      const service = moduleRef.get(LongtermMemoryService);
      expect(service.enabled).toBe(false);
      expect(await moduleRef.get(ConnectionRegistry).checkHealth()).toEqual([]);
      const error = await rejectionOf(
        moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE).load('e', 'k'),
      );
      expect(error).toBeInstanceOf(LongtermMemoryDisabledError);
      expect((error as Error).message).toContain('longtermMemory.uri');
      expect((error as Error).message).toContain('LONGTERM_MEMORY_URI');
      expect(() => service.session('e', { seq: 1, updatedAt: 1 })).toThrow(
        LongtermMemoryDisabledError,
      );
      expect(await rejectionOf(service.nextSeq('e'))).toBeInstanceOf(LongtermMemoryDisabledError);
    }
  });
});
