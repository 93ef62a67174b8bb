import { afterAll, describe, expect, it } from '@jest/globals';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemoryRunStore } from '../../src/modules/agent/runs/in-memory.run-store.js';
import { RedisRunStore } from '../../src/modules/agent/runs/redis.run-store.js';
import type { RunStore } from '../../src/modules/agent/runs/run-store.interface.js';
import { SqlRunStore } from '../../src/modules/agent/runs/sql.run-store.js';
import { ConnectionRegistry } from '../../src/modules/connections/connection-registry.js';
import { OwnRedisCluster } from '../support/redis-cluster.js';
import type { SqlTarget } from '../../src/modules/connections/sql/sql-target.js';
import {
  TEST_MYSQL_URL,
  TEST_POSTGRES_URL,
  TEST_REDIS_URL,
  tempDir,
} from '../support/test-databases.js';
import { AGENT_RUNS_SCHEMA } from '../../src/modules/agent/runs/schema/agent-runs.schema.js';
import { claimOf } from '../support/run-claims.js';

const registry = new ConnectionRegistry();
afterAll(() => registry.onApplicationShutdown());

/** A clock the test moves, for the backends that take one. */
class Clock {
  at = Date.now();
  now = () => this.at;
}

type Factory = (clock: Clock, retentionMs: number) => Promise<RunStore>;
const sql =
  (target: SqlTarget): Factory =>
  async (clock, retentionMs) =>
    new SqlRunStore(
      (await registry.acquireSql(target, { migrationsRun: true, schema: AGENT_RUNS_SCHEMA })).value,
      retentionMs,
      clock.now,
    );

/** A 3-master Redis Cluster of the test's own, for the Redis store's cases. */
const cluster = await OwnRedisCluster.start();
afterAll(() => cluster.stop());

const redisStore =
  (url: string): Factory =>
  async (_clock, retention) =>
    new RedisRunStore((await registry.acquireRedis(url)).value, 'test:runs:', retention);

const backends: Array<[string, Factory, { clock: boolean }]> = [
  [
    'memory',
    async (clock, retention) => new InMemoryRunStore(retention, clock.now),
    { clock: true },
  ],
  ['sqlite', sql({ dialect: 'sqlite', path: join(tempDir(), 'runs.sqlite') }), { clock: true }],
  ['postgres', sql({ dialect: 'postgres', url: TEST_POSTGRES_URL }), { clock: true }],
  ['mysql', sql({ dialect: 'mysql', url: TEST_MYSQL_URL }), { clock: true }],
  ['redis', redisStore(TEST_REDIS_URL), { clock: false }],
  ['redis cluster', redisStore(cluster.url), { clock: false }],
];

describe.each(backends)('run store on %s', (_name, factory, { clock: usesClock }) => {
  const runId = () => `run-${Math.random().toString(36).slice(2)}`;

  it('keeps the first value of putIfAbsent, even under concurrent writers', async () => {
    const store = await factory(new Clock(), 60_000);
    const id = runId();
    const winners = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.putIfAbsent(id, 'base:0', `v${i}`)),
    );
    expect(new Set(winners).size).toBe(1);
    expect(await store.get(id, 'base:0')).toBe(winners[0]);
    expect(await store.putIfAbsent(id, 'base:0', 'later')).toBe(winners[0]);
  });

  it('stores a guarded entry only while the guard holds its own value, one winner among concurrent pairs', async () => {
    const store = await factory(new Clock(), 60_000);
    const id = runId();
    expect(await store.putIfAbsentGuarded(id, ['base:0', '3'], ['llm:0:0', 'a'])).toEqual({
      guard: '3',
      entry: 'a',
    });
    // The same guard again: the entry already there is kept and answered.
    expect(await store.putIfAbsentGuarded(id, ['base:0', '3'], ['llm:0:0', 'b'])).toEqual({
      guard: '3',
      entry: 'a',
    });
    expect(await store.putIfAbsentGuarded(id, ['base:0', '3'], ['recall', 'r'])).toEqual({
      guard: '3',
      entry: 'r',
    });
    // Another guard value: nothing is written.
    expect(await store.putIfAbsentGuarded(id, ['base:0', '5'], ['llm:0:1', 'c'])).toEqual({
      guard: '3',
    });
    expect(await store.get(id, 'llm:0:1')).toBeUndefined();

    const raced = runId();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.putIfAbsentGuarded(raced, ['base:0', `${i}`], ['llm:0:0', `from ${i}`]),
      ),
    );
    const winner = answers[0]!.guard;
    expect(answers.every((answer) => answer.guard === winner)).toBe(true);
    // Only the pair whose guard won wrote its entry, and only its caller was answered one.
    expect(answers.filter((answer) => answer.entry !== undefined)).toEqual([
      { guard: winner, entry: `from ${winner}` },
    ]);
    expect(await store.get(raced, 'llm:0:0')).toBe(`from ${winner}`);
  });

  it('lists the live entries of a run, and none of another or an unknown one', async () => {
    const store = await factory(new Clock(), 60_000);
    const [a, b] = [runId(), runId()];
    await store.put(a, 'status', 's');
    await store.putIfAbsent(a, 'llm:0:0', '{"x":1}');
    await store.put(b, 'status', 'other');
    const entries = (await store.entries(a)).sort(([x], [y]) => (x < y ? -1 : 1));
    expect(entries).toEqual([
      ['llm:0:0', '{"x":1}'],
      ['status', 's'],
    ]);
    expect(await store.entries(runId())).toEqual([]);
  });

  it('overwrites with put, and keeps runs and keys apart', async () => {
    const store = await factory(new Clock(), 60_000);
    const [a, b] = [runId(), runId()];
    await store.put(a, 'status', '{"status":"queued"}');
    await store.put(a, 'status', '{"status":"running"}');
    await store.put(b, 'status', '{"status":"completed"}');
    expect(await store.get(a, 'status')).toBe('{"status":"running"}');
    expect(await store.get(b, 'status')).toBe('{"status":"completed"}');
    expect(await store.get(a, 'other')).toBeUndefined();
    expect(await store.get(runId(), 'status')).toBeUndefined();
  });

  it('removes one entry, leaving the other entries of the run; removing a missing one is a no-op', async () => {
    const store = await factory(new Clock(), 60_000);
    const [a, b] = [runId(), runId()];
    await store.put(a, 'x', '1');
    await store.put(a, 'y', '2');
    await store.put(b, 'x', '3');
    await store.removeEntry(a, 'x');
    await store.removeEntry(a, 'never');
    await store.removeEntry(runId(), 'x');
    expect(await store.entries(a)).toEqual([['y', '2']]);
    expect(await store.get(a, 'x')).toBeUndefined();
    expect(await store.get(b, 'x')).toBe('3');
    // Written again after its removal, it is there again.
    await store.put(a, 'x', '4');
    expect(await store.get(a, 'x')).toBe('4');
  });

  it('replaces a value only when it is the expected one, one winner among concurrent writers', async () => {
    const clock = new Clock();
    const store = await factory(clock, usesClock ? 1_000 : 150);
    const id = runId();
    expect(await store.replaceIf(id, 'status', 'x', 'y')).toBe(false); // nothing there
    expect(await store.get(id, 'status')).toBeUndefined();
    await store.put(id, 'status', '{"v":1}');
    expect(await store.replaceIf(id, 'status', '{"V":1}', 'bad')).toBe(false); // bytes, not case
    const outcomes = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        store.replaceIf(id, 'status', '{"v":1}', `{"v":${i + 2}}`),
      ),
    );
    expect(outcomes.filter(Boolean)).toHaveLength(1);
    const winner = outcomes.indexOf(true) + 2;
    expect(await store.get(id, 'status')).toBe(`{"v":${winner}}`);
    // An expired value is not there to compare with.
    if (usesClock) clock.at += 1_001;
    else await sleep(300);
    expect(await store.replaceIf(id, 'status', `{"v":${winner}}`, 'late')).toBe(false);
    expect(await store.get(id, 'status')).toBeUndefined();
  });

  it('gives concurrent compare-and-sets of many runs each its own outcome', async () => {
    const clock = new Clock();
    const store = await factory(clock, 60_000);
    const ids = Array.from({ length: 40 }, () => runId());
    // With a clock, the first ten expire before the burst.
    const expired = usesClock ? 10 : 0;
    const value = (i: number) => `{"v":${i}}`;
    await Promise.all(ids.slice(0, expired).map((id, i) => store.put(id, 'status', value(i))));
    clock.at += 30_000;
    await Promise.all(
      ids.slice(expired).map((id, i) => store.put(id, 'status', value(i + expired))),
    );
    clock.at += 30_001;
    // Every third expects what is stored, the others a neighbour's value.
    const succeeds = (i: number) => i >= expired && i % 3 === 0;
    const outcomes = await Promise.all(
      ids.map((id, i) =>
        store.replaceIf(id, 'status', value(i % 3 === 0 ? i : i + 1), `{"v":${i},"n":1}`),
      ),
    );
    expect(outcomes).toEqual(ids.map((_, i) => succeeds(i)));
    expect(await Promise.all(ids.map((id) => store.get(id, 'status')))).toEqual(
      ids.map((_, i) => (i < expired ? undefined : succeeds(i) ? `{"v":${i},"n":1}` : value(i))),
    );
  });

  it('forgets entries after the retention, and sweeps them', async () => {
    const clock = new Clock();
    const store = await factory(clock, usesClock ? 1_000 : 150);
    const id = runId();
    await store.putIfAbsent(id, 'llm:0:0', 'old');
    if (usesClock) clock.at += 1_001;
    else await sleep(300);
    expect(await store.get(id, 'llm:0:0')).toBeUndefined();
    expect(await store.entries(id)).toEqual([]);
    expect(await store.putIfAbsent(id, 'llm:0:0', 'new')).toBe('new');
    // An expired guard is not there either: the pair is stored anew.
    const guarded = runId();
    await store.putIfAbsentGuarded(guarded, ['base:0', '1'], ['llm:0:0', 'old']);
    if (usesClock) clock.at += 1_001;
    else await sleep(300);
    expect(await store.putIfAbsentGuarded(guarded, ['base:0', '2'], ['llm:0:0', 'new'])).toEqual({
      guard: '2',
      entry: 'new',
    });
    if (usesClock) {
      await store.putIfAbsent(runId(), 'k', 'v');
      clock.at += 1_001;
      expect(await store.sweep(1_000)).toBeGreaterThan(0);
      expect(await store.sweep(1_000)).toBe(0);
    }
  });

  it('pages an ordered index newest first, ties by run id, through a cursor', async () => {
    const clock = new Clock();
    const store = await factory(clock, 60_000);
    const index = `#o:${runId()}`;
    const base = clock.at - 1_000;
    // Out of order, with three runs in one millisecond.
    const added = [
      { runId: 'r-b', at: base + 5 },
      { runId: 'r-a', at: base + 1 },
      { runId: 'r-z', at: base + 5 },
      { runId: 'r-c', at: base + 9 },
      { runId: 'r-m', at: base + 5 },
    ];
    for (const entry of added) {
      await store.put(entry.runId, 'status', '{}');
      await store.addToOrderedIndex(index, entry.runId, entry.at);
    }
    await store.addToOrderedIndex(index, 'r-b', base + 5); // again: no duplicate
    const all = await store.orderedPage(index, 10);
    expect(all.map((entry) => entry.runId)).toEqual(['r-c', 'r-z', 'r-m', 'r-b', 'r-a']);
    expect(all[0]).toEqual({ runId: 'r-c', at: base + 9 });
    const first = await store.orderedPage(index, 2);
    expect(first.map((entry) => entry.runId)).toEqual(['r-c', 'r-z']);
    const second = await store.orderedPage(index, 2, first.at(-1));
    expect(second.map((entry) => entry.runId)).toEqual(['r-m', 'r-b']);
    const third = await store.orderedPage(index, 2, second.at(-1));
    expect(third).toEqual([{ runId: 'r-a', at: base + 1 }]);
    expect(await store.orderedPage(`#o:${runId()}`, 5)).toEqual([]);
    await store.deleteRuns([index]);
    expect(await store.orderedPage(index, 10)).toEqual([]);
  });

  it('claims a run: binds its owner, reads its record, keeps the first claim time, indexes it once', async () => {
    const clock = new Clock();
    const store = await factory(clock, 60_000);
    const id = runId();
    const owner = `conv-${id}`;
    expect(await store.claim(claimOf(id, owner, clock.at - 500))).toEqual({
      owner,
      bound: true,
      read: undefined,
      at: clock.at - 500,
    });
    await store.put(id, 'status', '{"createdAt":1}');
    // Claimed again (a retry): the first time stands, the record is read, nothing is indexed twice.
    expect(await store.claim(claimOf(id, owner, clock.at))).toEqual({
      owner,
      bound: true,
      read: '{"createdAt":1}',
      at: clock.at - 500,
    });
    expect(await store.orderedPage(`#o:${owner}`, 10)).toEqual([{ runId: id, at: clock.at - 500 }]);
    expect(await store.indexed(`#e:${owner}`)).toEqual([id]);
    expect(new Map(await store.entries(id))).toEqual(
      new Map([
        ['conversation', owner],
        ['claimedAt', String(clock.at - 500)],
        ['status', '{"createdAt":1}'],
      ]),
    );
    // A run recorded before claims were timed takes its time from the record read.
    const legacy = runId();
    await store.put(legacy, 'status', '{"createdAt":42}');
    expect(await store.claim(claimOf(legacy, owner, clock.at))).toMatchObject({
      bound: true,
      at: 42,
    });
    await store.deleteRuns([id, legacy, `#o:${owner}`, `#e:${owner}`]);
  });

  it('refuses a claim for another owner, reading and indexing nothing, even under concurrent claims', async () => {
    const store = await factory(new Clock(), 60_000);
    const id = runId();
    const owners = [`a-${id}`, `b-${id}`];
    // Recorded (some backends page only runs with a record), not yet claimed.
    const createdAt = Date.now() - 100;
    await store.put(id, 'status', JSON.stringify({ createdAt }));
    const claims = await Promise.all(
      Array.from({ length: 8 }, (_, i) => store.claim(claimOf(id, owners[i % 2]!, 1_000 + i))),
    );
    const winner = claims[0]!.owner;
    const loser = owners.find((owner) => owner !== winner)!;
    for (const claim of claims) {
      expect(claim.owner).toBe(winner);
      expect(claim.bound).toBe(claim.owner === owners[claims.indexOf(claim) % 2]);
    }
    // Every claim that bound read the record and kept its time; the index holds the run once.
    expect(new Set(claims.flatMap((claim) => (claim.bound ? [claim.at, claim.read] : [])))).toEqual(
      new Set([createdAt, JSON.stringify({ createdAt })]),
    );
    expect(await store.orderedPage(`#o:${winner}`, 10)).toEqual([{ runId: id, at: createdAt }]);
    expect(await store.orderedPage(`#o:${loser}`, 10)).toEqual([]);
    expect(await store.indexed(`#e:${loser}`)).toEqual([]);
    await store.deleteRuns([id, ...owners.flatMap((owner) => [`#o:${owner}`, `#e:${owner}`])]);
  });

  it('claims a legacy run (a record, no claim time) by its record, in order with indexed runs, whatever its record holds', async () => {
    const clock = new Clock();
    const store = await factory(clock, 60_000);
    const [legacy, fresh, added] = [runId(), runId(), runId()];
    const owner = `conv-${legacy}`;
    const createdAt = Date.now() - 100;
    // A record JSON.stringify wrote with a lone surrogate, which PostgreSQL's jsonb refuses.
    const record = JSON.stringify({ createdAt, note: '\ud800' });
    expect(record).toContain('\\ud800');
    await store.put(legacy, 'status', record);
    for (let i = 0; i < 2; i += 1)
      expect(await store.claim(claimOf(legacy, owner, clock.at))).toEqual({
        owner,
        bound: true,
        read: record,
        at: createdAt,
      });
    await store.put(fresh, 'status', '{}');
    await store.claim({ ...claimOf(fresh, owner, createdAt + 2), readKey: 'none' });
    await store.put(added, 'status', '{}');
    await store.addToOrderedIndex(`#o:${owner}`, added, createdAt + 1);
    // The claims' keys sort with one added by addToOrderedIndex: the same key format.
    expect(await store.orderedPage(`#o:${owner}`, 10)).toEqual([
      { runId: fresh, at: createdAt + 2 },
      { runId: added, at: createdAt + 1 },
      { runId: legacy, at: createdAt },
    ]);
    await store.deleteRuns([legacy, fresh, added, `#o:${owner}`, `#e:${owner}`]);
  });

  it('claims into several indexes, a repeated one once', async () => {
    const store = await factory(new Clock(), 60_000);
    const id = runId();
    const indexes = [`#e:a-${id}`, `#e:b-${id}`, `#e:a-${id}`];
    expect(await store.claim({ ...claimOf(id, `conv-${id}`, Date.now()), indexes })).toMatchObject({
      bound: true,
    });
    expect(await store.indexed(indexes[0]!)).toEqual([id]);
    expect(await store.indexed(indexes[1]!)).toEqual([id]);
    await store.deleteRuns([id, `#o:conv-${id}`, ...indexes]);
  });

  if (usesClock)
    it('lets a claim take over a run whose entries expired, with a new claim time', async () => {
      const clock = new Clock();
      const store = await factory(clock, 60_000);
      const id = runId();
      const first = clock.at;
      await store.claim(claimOf(id, `a-${id}`, first));
      clock.at += 60_001;
      expect(await store.claim(claimOf(id, `b-${id}`, clock.at))).toEqual({
        owner: `b-${id}`,
        bound: true,
        read: undefined,
        at: clock.at,
      });
      await store.put(id, 'status', '{}');
      expect(await store.orderedPage(`#o:b-${id}`, 10)).toEqual([{ runId: id, at: clock.at }]);
      await store.deleteRuns([id, `#o:a-${id}`, `#e:a-${id}`, `#o:b-${id}`, `#e:b-${id}`]);
    });
});
