import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  type Context,
  type ContextManager,
  ROOT_CONTEXT,
  context,
  createContextKey,
} from '@opentelemetry/api';
import { AsyncLocalStorage } from 'node:async_hooks';
import { setImmediate as tick } from 'node:timers/promises';
import {
  AppendCoalescer,
  type AppendOutcome,
  type AppendRequest,
  MAX_GROUP_MESSAGES,
} from './append-coalescer.js';

/**
 * One conversation's log in memory with the backends' append rule (ids idempotent, the expected
 * version checked only when a message is new); every call answers a tick later and is recorded.
 */
class ModelBackend {
  readonly ids = new Set<string>();
  readonly log: string[] = [];
  readonly calls: Array<{ kind: 'one' | 'group'; conversationId: string; sizes: number[] }> = [];
  /** A batch holding this id makes its call fail (alone or in a group). */
  poison = 'poison';

  readonly one = async (conversationId: string, request: AppendRequest) => {
    this.calls.push({ kind: 'one', conversationId, sizes: [request.messages.length] });
    await tick();
    this.assertHealthy([request]);
    return this.apply(request);
  };

  readonly group = async (conversationId: string, requests: AppendRequest[]) => {
    this.calls.push({ kind: 'group', conversationId, sizes: requests.map(sizeOf) });
    await tick();
    this.assertHealthy(requests);
    return requests.map((request) => this.apply(request));
  };

  private assertHealthy(requests: AppendRequest[]): void {
    if (requests.some((r) => r.messages.some((m) => m.id === this.poison)))
      throw new Error('poisoned batch');
  }

  private apply({ messages, expectedVersion }: AppendRequest): AppendOutcome {
    const fresh = messages.filter((m) => !this.ids.has(m.id));
    if (fresh.length > 0 && expectedVersion !== undefined && expectedVersion !== this.log.length)
      return { conflict: true, version: this.log.length };
    for (const m of fresh) {
      this.ids.add(m.id);
      this.log.push(m.id);
    }
    return { conflict: false, version: this.log.length };
  }
}

const sizeOf = (request: AppendRequest) => request.messages.length;

function batch(ids: string[], expectedVersion?: number): AppendRequest {
  return {
    messages: ids.map((id) => ({ id, role: 'user' as const, json: `{"id":"${id}"}` })),
    expectedVersion,
  };
}

describe('AppendCoalescer', () => {
  it('runs a lone append at once, and the appends that arrive meanwhile as one group, in order', async () => {
    const backend = new ModelBackend();
    const coalescer = new AppendCoalescer(backend.one, backend.group);
    const requests = [
      batch(['a']),
      batch(['b', 'c']),
      batch(['a']), // a retry of an id already stored: a no-op
      batch(['d'], 0), // stale expected version, new id: a conflict
      batch(['c', 'b'], 0), // stale, but everything stored: a no-op
      batch(['e'], 3), // the version at its turn: applies
      batch(['f', 'e']), // e stored by the batch before it, in the same group
      batch(['g'], 4), // one behind: a conflict
    ];
    const outcomes = await Promise.all(requests.map((r) => coalescer.append('c1', r)));
    expect(outcomes).toEqual([
      { conflict: false, version: 1 },
      { conflict: false, version: 3 },
      { conflict: false, version: 3 },
      { conflict: true, version: 3 },
      { conflict: false, version: 3 },
      { conflict: false, version: 4 },
      { conflict: false, version: 5 },
      { conflict: true, version: 5 },
    ]);
    expect(backend.log).toEqual(['a', 'b', 'c', 'e', 'f']);
    expect(backend.calls).toEqual([
      { kind: 'one', conversationId: 'c1', sizes: [1] },
      { kind: 'group', conversationId: 'c1', sizes: [2, 1, 1, 2, 1, 2, 1] },
    ]);
  });

  it('does not make different conversations wait for each other', async () => {
    const backend = new ModelBackend();
    const coalescer = new AppendCoalescer(backend.one, backend.group);
    await Promise.all([
      coalescer.append('x', batch(['x1'])),
      coalescer.append('y', batch(['y1'])),
      coalescer.append('x', batch(['x2'])),
    ]);
    expect(backend.calls.map((call) => `${call.kind}:${call.conversationId}`)).toEqual([
      'one:x',
      'one:y',
      'one:x', // a group of one goes alone
    ]);
  });

  it('fails only the caller whose batch fails: a failed group is retried one by one', async () => {
    const backend = new ModelBackend();
    const coalescer = new AppendCoalescer(backend.one, backend.group);
    const settled = await Promise.allSettled([
      coalescer.append('c', batch(['a'])),
      coalescer.append('c', batch(['b'])),
      coalescer.append('c', batch(['poison', 'z'])),
      coalescer.append('c', batch(['d'], 2)),
      coalescer.append('c', batch(['e'], 2)),
    ]);
    expect(settled.map((s) => (s.status === 'fulfilled' ? s.value : 'failed'))).toEqual([
      { conflict: false, version: 1 },
      { conflict: false, version: 2 },
      'failed',
      { conflict: false, version: 3 },
      { conflict: true, version: 3 },
    ]);
    expect((settled[2] as PromiseRejectedResult).reason).toEqual(new Error('poisoned batch'));
    expect(backend.log).toEqual(['a', 'b', 'd']);
    expect(backend.calls.map((call) => call.kind)).toEqual([
      'one',
      'group', // failed: then each of its 4 alone
      'one',
      'one',
      'one',
      'one',
    ]);
  });

  it('keeps working after a lone append fails', async () => {
    const backend = new ModelBackend();
    const coalescer = new AppendCoalescer(backend.one, backend.group);
    const first = coalescer.append('c', batch(['poison']));
    const second = coalescer.append('c', batch(['a']));
    await expect(first).rejects.toThrow('poisoned batch');
    await expect(second).resolves.toEqual({ conflict: false, version: 1 });
    await expect(coalescer.append('c', batch(['b']))).resolves.toEqual({
      conflict: false,
      version: 2,
    });
  });

  it(`caps a group at ${MAX_GROUP_MESSAGES} messages; a larger batch still goes, alone`, async () => {
    const backend = new ModelBackend();
    const coalescer = new AppendCoalescer(backend.one, backend.group);
    const ids = (tag: string, n: number) => Array.from({ length: n }, (_, i) => `${tag}${i}`);
    const outcomes = await Promise.all([
      coalescer.append('c', batch(['first'])),
      coalescer.append('c', batch(ids('a', 600))),
      coalescer.append('c', batch(ids('b', 400))),
      coalescer.append('c', batch(ids('c', 1))),
      coalescer.append('c', batch(ids('d', MAX_GROUP_MESSAGES + 1))),
      coalescer.append('c', batch(ids('e', 1))),
    ]);
    expect(backend.calls.map((call) => [call.kind, call.sizes])).toEqual([
      ['one', [1]],
      ['group', [600, 400]],
      ['one', [1]], // the next would pass the cap
      ['one', [MAX_GROUP_MESSAGES + 1]], // never split: it goes alone
      ['one', [1]],
    ]);
    expect(outcomes.map((o) => o.version)).toEqual([1, 601, 1001, 1002, 2003, 2004]);
  });
});

/** The least context manager OpenTelemetry needs, on `AsyncLocalStorage` (as the SDK's does). */
class StorageContextManager implements ContextManager {
  private readonly storage = new AsyncLocalStorage<Context>();
  active(): Context {
    return this.storage.getStore() ?? ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    ctx: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return this.storage.run(ctx, () => fn.call(thisArg, ...args));
  }
  bind<T>(_ctx: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    this.storage.disable();
    return this;
  }
}

describe('AppendCoalescer and the active context', () => {
  const manager = new StorageContextManager();
  const caller = createContextKey('caller');
  beforeAll(() => {
    context.setGlobalContextManager(manager.enable());
  });
  afterAll(() => {
    context.disable();
  });

  it("runs a group in its first caller's context, and a retried request in its own", async () => {
    const backend = new ModelBackend();
    const seen: string[] = [];
    const here = () => String(context.active().getValue(caller));
    const coalescer = new AppendCoalescer(
      (c, r) => {
        seen.push(`one:${here()}`);
        return backend.one(c, r);
      },
      (c, r) => {
        seen.push(`group:${here()}`);
        return backend.group(c, r);
      },
    );
    const as = (name: string, ids: string[]) =>
      context.with(ROOT_CONTEXT.setValue(caller, name), () => coalescer.append('c', batch(ids)));
    await Promise.allSettled([
      as('first', ['a']),
      as('second', ['b']),
      as('third', ['poison']),
      as('fourth', ['d']),
    ]);
    expect(seen).toEqual(['one:first', 'group:second', 'one:second', 'one:third', 'one:fourth']);
  });
});

describe('AppendCoalescer when a backend throws synchronously', () => {
  it('rejects that caller and lets the next append through', async () => {
    const backend = new ModelBackend();
    let thrown = false;
    const coalescer = new AppendCoalescer((c, r) => {
      if (!thrown) {
        thrown = true;
        throw new Error('sync failure');
      }
      return backend.one(c, r);
    }, backend.group);
    await expect(coalescer.append('c', batch(['a']))).rejects.toThrow('sync failure');
    await expect(coalescer.append('c', batch(['b']))).resolves.toEqual({
      conflict: false,
      version: 1,
    });
  });
});
