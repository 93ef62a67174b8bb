import { afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { InvalidModuleOptionsError } from '../../src/common/errors/invalid-module-options.error.js';
import { ValueTooLargeError } from '../../src/common/errors/value-too-large.error.js';
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
    for (const uri of [
      'sqlite:',
      'ftp://host/x',
      'not a uri',
      'postgres://',
      'postgres:///db',
      'mongodb://h/db',
      'MEMORY://x',
    ]) {
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
      expect((error as Error).message).toContain('LongtermMemoryModule.forRoot({ uri })');
      // The library has no environment variables: the app's own name for it is the app's to add.
      expect((error as Error).message).not.toContain('LONGTERM_MEMORY_URI');
      expect(() => service.session('e', { seq: 1, updatedAt: 1 })).toThrow(
        LongtermMemoryDisabledError,
      );
      expect(await rejectionOf(service.nextSeq('e'))).toBeInstanceOf(LongtermMemoryDisabledError);
    }
  });

  it('takes URI schemes in any case', async () => {
    for (const uri of [
      'MEMORY://',
      'SQLite::memory:',
      TEST_REDIS_URL.replace('redis:', 'REDIS:'),
    ]) {
      const moduleRef = await boot({ uri, keyPrefix: 'test:lt-module:' });
      expect(moduleRef.get(LongtermMemoryService).enabled).toBe(true);
    }
  });

  it('names the exact rule for a URI without a host', async () => {
    const error = await rejectionOf(boot({ uri: 'postgres:///db' }));
    expect((error as Error).message).toContain('has no host: write postgres://');
  });

  it.each([
    [{ url: 'memory://' }, 'url', 'did you mean "uri"?'],
    [{ uri: 'memory://', migrationRun: false }, 'migrationRun', 'did you mean "migrationsRun"?'],
    [{ uri: 'memory://', tombstoneTtlMs: 0 }, 'tombstoneTtlMs', 'integer'],
    [{ uri: 'memory://', defaultTtlMs: Number.NaN }, 'defaultTtlMs', 'integer'],
    [{ uri: 'memory://', sweep: { batchSize: -1 } }, 'sweep.batchSize', 'integer'],
    [{ uri: 'memory://', keyPrefix: 'a{b}' }, 'keyPrefix', 'hash tag'],
    [{ uri: 'memory://', textSearch: { stemmer: 'german' } }, 'textSearch.stemmer', "'english'"],
    [
      { uri: 'memory://', textSearch: { queryStopWords: 'a' } },
      'textSearch.queryStopWords',
      'array',
    ],
    [{ uri: 'memory://', textSearch: { stopWords: [] } }, 'textSearch.stopWords', 'queryStopWords'],
    [
      { uri: 'memory://', textSearch: { stemmer: async (word: string) => word } },
      'textSearch.stemmer',
      'a Promise',
    ],
  ])('refuses %j at bootstrap, naming %s', async (options, option, hint) => {
    const error = await rejectionOf(boot(options as LongtermMemoryModuleOptions));
    expect(error).toBeInstanceOf(InvalidModuleOptionsError);
    expect(error).toMatchObject({ moduleName: 'LongtermMemoryModule', option });
    expect((error as Error).message).toContain(hint);
  });

  it.each([
    ['memory', 'memory://'],
    ['sqlite', 'sqlite::memory:'],
    ['redis', TEST_REDIS_URL],
  ])('%s: searches by the textSearch it is given, at save and at search', async (_label, uri) => {
    const entityId = `text-${Math.random().toString(36).slice(2)}`;
    const plain = (
      await boot({ uri, keyPrefix: 'test:lt-module:', textSearch: { stemmer: 'none' } })
    ).get(LongtermMemoryService);
    const seq = await plain.nextSeq(entityId);
    await plain.store.saveMany([
      { entityId, key: 'works', value: 'Ada works at the aquarium', seq },
      { entityId, key: 'worked', value: 'Grace worked there', seq },
    ]);
    expect(
      (await plain.recall(entityId, 'where does Ada work?')).map((hit) => hit.record.key),
    ).toEqual(['works']);
    expect(await plain.store.searchText(entityId, 'work')).toEqual([]);
    // A custom stemmer: any function, for any language.
    const custom = (
      await boot({
        uri,
        keyPrefix: 'test:lt-module:',
        textSearch: { stemmer: (word) => word.replace(/(ed|s)$/, ''), queryStopWords: [] },
      })
    ).get(LongtermMemoryService);
    const other = `${entityId}-custom`;
    await custom.store.save({ entityId: other, key: 'worked', value: 'Grace worked there', seq });
    expect((await custom.store.searchText(other, 'works')).map((hit) => hit.record.key)).toEqual([
      'worked',
    ]);
  });

  it('names a bad record of save() as the lone record it is, and of saveMany() by its row', async () => {
    const moduleRef = await boot({ uri: 'memory://', maxValueBytes: 100 });
    const service = moduleRef.get(LongtermMemoryService);
    const big = { entityId: 'e', key: 'k', value: 'x'.repeat(200), seq: 1 };
    const lone = await rejectionOf(service.save(big));
    expect(lone).toBeInstanceOf(ValueTooLargeError);
    expect(lone).toMatchObject({ argument: 'record.value', sizeBytes: 202, maxBytes: 100 });
    expect(await rejectionOf(service.save({ ...big, value: 1, seq: -1 }))).toMatchObject({
      constructor: InvalidArgumentError,
      argument: 'record.seq',
    });
    expect(await rejectionOf(service.saveMany([big]))).toMatchObject({
      argument: 'records[0].value',
    });
    expect(await service.store.load('e', 'k')).toBeNull();
  });

  it('keeps tombstones for tombstoneTtlMs', async () => {
    let now = 1_000_000;
    const moduleRef = await boot({ uri: 'memory://', tombstoneTtlMs: 500, now: () => now });
    const store = moduleRef.get<LongtermMemoryStore>(LONGTERM_MEMORY_STORE);
    await store.delete('e', 'k', 5);
    expect(await store.save({ entityId: 'e', key: 'k', value: 1, seq: 4 })).toEqual({
      applied: false,
    });
    now += 501;
    expect(await store.save({ entityId: 'e', key: 'k', value: 1, seq: 4 })).toEqual({
      applied: true,
    });
  });

  it.each([
    ['memory', 'memory://'],
    ['sqlite', 'sqlite::memory:'],
    ['postgres', TEST_POSTGRES_URL],
    ['mysql', TEST_MYSQL_URL],
    ['redis', TEST_REDIS_URL],
  ])(
    '%s: new runs take seqs above an erasure mark, stale ones are refused',
    async (_label, uri) => {
      const moduleRef = await boot({ uri, keyPrefix: 'test:lt-module:' });
      const service = moduleRef.get(LongtermMemoryService);
      const entity = `erase-${Math.random().toString(36).slice(2)}`;
      const staleRun = await service.nextSeq(entity);
      await service.store.save({ entityId: entity, key: 'manual', value: 1, seq: 50 });
      await service.store.deleteEntity(entity);
      const stale = service.session(entity, { seq: staleRun, updatedAt: 1 });
      await stale.save('name', 'Ada');
      expect(await stale.flush()).toMatchObject({ flushed: 0, refused: 1 });
      const next = await service.nextSeq(entity);
      expect(next).toBeGreaterThan(50);
      const fresh = service.session(entity, { seq: next, updatedAt: 2 });
      await fresh.save('name', 'Grace');
      expect(await fresh.flush()).toMatchObject({ flushed: 1, refused: 0 });
      expect((await service.store.load(entity, 'name'))?.value).toBe('Grace');
    },
  );
});
