import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { Test, type TestingModule } from '@nestjs/testing';
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../../src/common/errors/invalid-argument.error.js';
import { AgentMemoryStore } from '../../src/modules/langgraph/agent-memory-store.js';
import { LangGraphModule } from '../../src/modules/langgraph/langgraph.module.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { LongtermMemoryModule } from '../../src/modules/longterm/longterm.module.js';
import { longtermUris } from '../support/test-databases.js';

/**
 * Namespace parts that would collide under a naive join (separators, lengths, digits). LangGraph's
 * public methods refuse `:` and `.` in parts; `batch` (what LangGraph's runtime calls) does not.
 */
const HOSTILE: string[][] = [
  ['a', 'b'],
  ['a|b'],
  ['a', '|b'],
  ['a1:b'],
  ['a', '1:b'],
  ['1:a', 'b'],
  ['a:', 'b'],
  ['é', '💡'],
];

describe.each(longtermUris('langgraph-store.sqlite'))('AgentMemoryStore on %s', (_label, uri) => {
  let app: TestingModule;
  let store: AgentMemoryStore;
  let longterm: LongtermMemoryService;
  let scope: string;

  beforeAll(async () => {
    app = await Test.createTestingModule({
      imports: [
        LongtermMemoryModule.forRoot({ uri: uri() }),
        LangGraphModule.forRoot({ uri: 'memory://', store: { entityParts: 1 } }),
      ],
    }).compile();
    await app.init();
    store = app.get(AgentMemoryStore);
    longterm = app.get(LongtermMemoryService);
  });
  afterAll(() => app.close());
  // Each test its own person: tests run in any order.
  beforeEach(() => {
    scope = `user-${randomUUID()}`;
  });
  /** The hostile namespaces, each with one item. */
  const putHostile = () =>
    store.batch(
      HOSTILE.map((parts, index) => ({
        namespace: [scope, ...parts],
        key: 'k|1:x',
        value: { index, parts },
      })),
    );

  it('keeps hostile namespaces apart and gives each item back as put', async () => {
    await putHostile();
    const items = await store.batch(
      HOSTILE.map((parts) => ({ namespace: [scope, ...parts], key: 'k|1:x' })),
    );
    for (const [index, parts] of HOSTILE.entries())
      expect(items[index]).toMatchObject({
        namespace: [scope, ...parts],
        key: 'k|1:x',
        value: { index, parts },
      });
    const [underA] = await store.batch([{ namespacePrefix: [scope, 'a'], limit: 50 }]);
    expect(underA.map((item) => JSON.stringify(item.namespace.slice(1))).sort()).toEqual(
      [
        ['a', '1:b'],
        ['a', '|b'],
        ['a', 'b'],
      ]
        .map((parts) => JSON.stringify(parts))
        .sort(),
    );
    const namespaces = await store.listNamespaces({ prefix: [scope], limit: 50 });
    expect(namespaces.map((namespace) => JSON.stringify(namespace)).sort()).toEqual(
      HOSTILE.map((parts) => JSON.stringify([scope, ...parts])).sort(),
    );
  });

  it('keeps createdAt across updates, deletes, and filters, pages and lists like LangGraph', async () => {
    const ns = [scope, 'notes'];
    await store.put(ns, 'n1', { topic: 'food', stars: 3 });
    const created = (await store.get(ns, 'n1'))!.createdAt;
    await new Promise((resolve) => setTimeout(resolve, 5));
    await store.put(ns, 'n1', { topic: 'food', stars: 5 });
    const updated = (await store.get(ns, 'n1'))!;
    expect(updated.createdAt).toEqual(created);
    expect(updated.updatedAt.getTime()).toBeGreaterThan(created.getTime());
    await store.put(ns, 'n2', { topic: 'travel', stars: 4 });
    await store.put(ns, 'n3', { topic: 'food', stars: 1 });
    const keys = (items: Array<{ key: string }>) => items.map((item) => item.key);
    expect(keys(await store.search(ns, { filter: { topic: 'food' } }))).toEqual(['n1', 'n3']);
    expect(keys(await store.search(ns, { filter: { stars: { $gte: 4 } } }))).toEqual(['n1', 'n2']);
    expect(keys(await store.search(ns, { filter: { topic: { $in: ['travel'] } } }))).toEqual([
      'n2',
    ]);
    expect(keys(await store.search(ns, { limit: 1, offset: 1 }))).toEqual(['n2']);
    await store.delete(ns, 'n2');
    expect(await store.get(ns, 'n2')).toBeNull();
    expect(keys(await store.search(ns))).toEqual(['n1', 'n3']);
    expect(await store.listNamespaces({ prefix: [scope, 'notes'] })).toEqual([ns]);
    expect(await store.listNamespaces({ prefix: [scope], suffix: ['notes'] })).toEqual([ns]);
    await putHostile();
    const depthTwo = await store.listNamespaces({ prefix: [scope], maxDepth: 2 });
    expect(depthTwo).toContainEqual([scope, 'a']);
    expect(depthTwo.every((namespace) => namespace.length <= 2)).toBe(true);
    // A wildcard matches any one part.
    const third = await store.listNamespaces({ prefix: [scope, '*', 'b'] });
    expect(third.map((namespace) => namespace[1]).sort()).toEqual(['1:a', 'a', 'a:']);
  });

  it('finds items by their words with a query, scored', async () => {
    const ns = [scope, 'facts'];
    await store.put(ns, 'colour', { fact: 'My favourite colour is green' });
    await store.put(ns, 'pet', { fact: 'I have a cat called Miso' });
    const hits = await store.search(ns, { query: 'favourite colour' });
    expect(hits[0]).toMatchObject({
      key: 'colour',
      value: { fact: 'My favourite colour is green' },
    });
    expect(hits[0]!.score).toBeGreaterThan(0);
    expect(
      (await store.search(ns, { query: 'cat', filter: { fact: { $ne: 'x' } } })).map((h) => h.key),
    ).toEqual(['pet']);
  });

  it("stores each person's items under their entity: erasing the entity erases them", async () => {
    const person = `erase-${randomUUID()}`;
    await store.put([person, 'facts'], 'f', { fact: 'secret' });
    expect((await longterm.store.load(person, '5:facts|f'))?.value).toMatchObject({
      value: { fact: 'secret' },
    });
    await longterm.deleteEntity(person);
    expect(await store.get([person, 'facts'], 'f')).toBeNull();
    expect(await store.search([person])).toEqual([]);
  });

  it('refuses bad input before any I/O, naming the argument', async () => {
    const put = (namespace: string[], key: string, value: unknown) =>
      store.batch([{ namespace, key, value: value as Record<string, unknown> }]);
    await expect(put([], 'k', { a: 1 })).rejects.toThrow(/namespace: must have at least 1 part/);
    await expect(put([scope, ''], 'k', { a: 1 })).rejects.toThrow(InvalidArgumentError);
    await expect(put([scope], '', { a: 1 })).rejects.toThrow(/key/);
    await expect(put([scope], 'k', [1])).rejects.toThrow(/value: must be an object/);
    await expect(store.batch([{ namespacePrefix: [] }])).rejects.toThrow(
      /namespacePrefix: must have at least 1 part/,
    );
    await expect(store.listNamespaces()).rejects.toThrow(/must have at least 1 part/);
    await expect(put([scope, 'x'.repeat(600)], 'k', { a: 1 })).rejects.toThrow(
      /namespace: must be at most 512 UTF-8 bytes/,
    );
    await expect(put(['\u001fmessages\u001fabc', 'facts'], 'k', { a: 1 })).rejects.toThrow(
      /namespace: must not start with U\+001F/,
    );
    await expect(put(['x'.repeat(300), 'facts'], 'k', { a: 1 })).rejects.toThrow(/entity/);
    await expect(
      store.batch([{ namespacePrefix: [scope], query: 'tea', limit: 10, offset: 95 }]),
    ).rejects.toThrow(/offset \+ limit: must be at most 100/);
    // A bad operation fails its batch before any of it runs, or any seq is taken.
    const before = await longterm.nextSeq(scope);
    await expect(
      store.batch([
        { namespace: [scope, 'ok'], key: 'written?', value: { a: 1 } },
        { namespace: [scope, 'ok'], key: '', value: { a: 1 } },
      ]),
    ).rejects.toThrow(/key/);
    expect(await store.get([scope, 'ok'], 'written?')).toBeNull();
    expect(await longterm.nextSeq(scope)).toBe(before + 1);
    // LangGraph's own checks come first on its public methods.
    await expect(store.put([], 'k', { a: 1 })).rejects.toThrow(/Namespace cannot be empty/);
  });
});
