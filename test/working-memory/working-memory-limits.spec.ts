import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { ValueTooLargeError } from '../../src/common/errors/value-too-large.error.js';
import {
  WorkingMemoryFullError,
  WorkingMemoryQuotaError,
} from '../../src/modules/working-memory/errors/working-memory.errors.js';
import type { WorkingMemorySnapshot } from '../../src/modules/working-memory/interfaces/working-memory.interface.js';
import type { WorkingMemoryBackend } from '../../src/modules/working-memory/backends/working-memory-backend.interface.js';
import { WORKING_MEMORY_BACKEND } from '../../src/modules/working-memory/working-memory.constants.js';
import { WorkingMemoryModule } from '../../src/modules/working-memory/working-memory.module.js';
import type { WorkingMemoryModuleOptions } from '../../src/modules/working-memory/working-memory.options.js';
import { WorkingMemoryService } from '../../src/modules/working-memory/working-memory.service.js';
import { rejectionOf } from '../../src/testing/conformance-hooks.js';
import { workingMemoryBackends } from '../support/working-memory-backends.js';

const prefix = `test-wm-limits-${process.pid}:`;
/** Every case runs on memory, Redis and a Redis Cluster of the suite's own. */
const { backends, cleanup } = await workingMemoryBackends(prefix);

const opened: TestingModule[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
});
afterAll(cleanup);

let clock = 1_000_000;
async function open(options: WorkingMemoryModuleOptions): Promise<WorkingMemoryService> {
  const moduleRef = await Test.createTestingModule({
    imports: [WorkingMemoryModule.forRoot({ sweep: false, now: () => clock, ...options })],
  }).compile();
  opened.push(moduleRef);
  await moduleRef.init();
  return moduleRef.get(WorkingMemoryService);
}
const unique = (label: string) => `${label}-${Math.random().toString(36).slice(2)}`;
/** A string value whose entry takes exactly `bytes` bytes under `key`. */
const sized = (key: string, bytes: number) => 'x'.repeat(bytes - 2 - Buffer.byteLength(key));

describe.each(backends)('working memory limits (%s)', (_name, base) => {
  it('refuses a value over maxValueBytes before writing anything', async () => {
    const memory = (await open({ ...base, maxValueBytes: 100 })).for(unique('c'));
    await memory.set('ok', 'x'.repeat(98)); // 100 bytes of JSON
    const error = await rejectionOf(memory.set('big', 'x'.repeat(99)));
    expect(error).toBeInstanceOf(ValueTooLargeError);
    expect((error as Error).message).toContain('101 bytes of JSON, over the limit of 100');
    expect(await rejectionOf(memory.append('log', 'x'.repeat(99)))).toBeInstanceOf(
      ValueTooLargeError,
    );
    expect(await memory.keys()).toEqual(['ok']);
  });

  it('holds each tenant to its byte quota across conversations; others are not affected', async () => {
    const service = await open({ ...base, quota: { maxBytes: 1_000 } });
    const [tenant, other] = [unique('t'), unique('u')];
    const a = service.for(`${tenant}/a`);
    const b = service.for(`${tenant}/b`);
    await a.set('k', sized('k', 600));
    const error = await rejectionOf(b.set('k', sized('k', 500)));
    expect(error).toBeInstanceOf(WorkingMemoryQuotaError);
    expect(await b.keys()).toEqual([]);
    await service.for(`${other}/a`).set('k', sized('k', 900)); // another tenant's own quota
    await a.set('k', sized('k', 200)); // replacing counts the difference
    await b.set('k', sized('k', 700));
    expect(await rejectionOf(b.set('more', sized('more', 200)))).toBeInstanceOf(
      WorkingMemoryQuotaError,
    );
    await a.delete('k'); // frees 200
    await b.set('more', sized('more', 200));
  });

  it('holds each tenant to its count of conversations; a cleared or swept one frees its place', async () => {
    const service = await open({ ...base, quota: { maxConversations: 2 }, ttlMs: 1_000 });
    const tenant = unique('t');
    await service.for(`${tenant}/1`).set('k', 1);
    await service.for(`${tenant}/2`).set('k', 1);
    await service.for(`${tenant}/2`).set('k2', 2); // same conversation: no new place taken
    const third = service.for(`${tenant}/3`);
    expect(await rejectionOf(third.set('k', 1))).toBeInstanceOf(WorkingMemoryQuotaError);
    expect(await service.clear(`${tenant}/1`)).toBe(true);
    await third.set('k', 1);
    clock += 2_000;
    expect(await service.sweep()).toBeGreaterThanOrEqual(2);
    await service.for(`${tenant}/4`).set('k', 1);
    await service.for(`${tenant}/5`).set('k', 1);
  });

  it('sweeps every idle memory in one pass, batch after batch', async () => {
    const service = await open({ ...base, ttlMs: 1_000, sweep: { batchSize: 10 } });
    const ids = Array.from({ length: 35 }, () => unique('idle'));
    for (const id of ids) await service.for(id).set('k', 1);
    clock += 2_000;
    expect(await service.sweep()).toBeGreaterThanOrEqual(35);
    for (const id of ids) expect(await service.inspect(id)).toBeUndefined();
  });
});

describe('the memory backend’s process capacity', () => {
  it('reclaims idle memories least recently used first, else refuses the write', async () => {
    const expired: WorkingMemorySnapshot[] = [];
    const service = await open({
      backend: 'memory',
      capacity: { maxTotalBytes: 10_000, maxConversations: 3 },
      reclaimAfterIdleMs: 1_000,
      onExpire: async (snapshot) => {
        expired.push(snapshot);
      },
    });
    await service.for('one').set('k', 1);
    await service.for('two').set('k', 2);
    await service.for('three').set('k', 3);
    const error = await rejectionOf(service.for('four').set('k', 4));
    expect(error).toBeInstanceOf(WorkingMemoryFullError); // none idle long enough
    clock += 1_500;
    expect(await service.for('one').get('k')).toBe(1); // a use: 'two' is now the oldest
    await service.for('four').set('k', 4);
    expect(expired.map((snapshot) => snapshot.conversationId)).toContain('two');
    expect(expired.map((snapshot) => snapshot.conversationId)).not.toContain('one');
    expect(await service.inspect('one')).toBeDefined();
    // Bytes too: one write larger than what is free, with nothing idle.
    expect(await rejectionOf(service.for('five').set('big', sized('big', 9_999)))).toBeInstanceOf(
      WorkingMemoryFullError,
    );
  });
});

describe.each(backends)('working memory accounting (%s)', (_name, base) => {
  async function openWithBackend(options: Partial<WorkingMemoryModuleOptions>) {
    const moduleRef = await Test.createTestingModule({
      imports: [
        WorkingMemoryModule.forRoot({
          sweep: false,
          now: () => clock,
          ...base,
          ...options,
        } as WorkingMemoryModuleOptions),
      ],
    }).compile();
    opened.push(moduleRef);
    await moduleRef.init();
    return {
      service: moduleRef.get(WorkingMemoryService),
      backend: moduleRef.get<{ value: WorkingMemoryBackend }>(WORKING_MEMORY_BACKEND).value,
    };
  }

  it('stays exact when a memory is cleared between its write and the write’s charge', async () => {
    const { service, backend } = await openWithBackend({ quota: { maxConversations: 1 } });
    const tenant = unique('t');
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const charge = backend.charge.bind(backend);
    let first = true;
    backend.charge = async (...args) => {
      if (first) {
        first = false;
        await gate;
      }
      return charge(...args);
    };
    const writing = service.for(`${tenant}/a`).set('k', 1);
    for (let i = 0; i < 100 && (await service.inspect(`${tenant}/a`)) === undefined; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await service.clear(`${tenant}/a`)).toBe(true); // its release lands first
    open();
    await writing;
    // Usage is back to nothing: the tenant's one place is free.
    await service.for(`${tenant}/b`).set('k', 1);
  });

  it('frees a conversation’s place when its last entry is deleted', async () => {
    const service = await open({ ...base, quota: { maxConversations: 1 } });
    const tenant = unique('t');
    await service.for(`${tenant}/a`).set('k', 1);
    await service.for(`${tenant}/a`).delete('k');
    expect(await service.inspect(`${tenant}/a`)).toBeUndefined();
    await service.for(`${tenant}/b`).set('k', 1);
  });

  it('clears a memory even when it is being used', async () => {
    const service = await open(base);
    const id = unique('c');
    await service.for(id).set('k', 1);
    const [, cleared] = await Promise.all([service.for(id).get('k'), service.clear(id)]);
    expect(cleared).toBe(true);
    expect(await service.inspect(id)).toBeUndefined();
  });

  it('sweeps past memories whose on-expire hook fails, and tries them a TTL later', async () => {
    const service = await open({
      ...base,
      ttlMs: 1_000,
      sweep: { batchSize: 5 },
      onExpire: async (snapshot) => {
        if (snapshot.conversationId.startsWith('bad')) throw new Error('archive down');
      },
    });
    const bad = Array.from({ length: 12 }, () => unique('bad'));
    const good = Array.from({ length: 3 }, () => unique('good'));
    for (const id of [...bad, ...good]) await service.for(id).set('k', 1);
    clock += 2_000;
    expect(await service.sweep()).toBeGreaterThanOrEqual(3); // other tests' idle memories too, on Redis
    for (const id of good) expect(await service.inspect(id)).toBeUndefined();
    for (const id of bad) expect(await service.inspect(id)).toBeDefined();
  });
});
