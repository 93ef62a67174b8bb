import { describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  FORMATION_PENDING,
  FormationJournal,
  type JournaledFormation,
} from '../../src/modules/agent/formation-journal.js';
import type { AgentRunStatus } from '../../src/modules/agent/interfaces/agent-run.interface.js';
import type { RunStore } from '../../src/modules/agent/runs/run-store.interface.js';
import { sharedRunStores } from '../support/shared-run-stores.js';

/** Long enough that a live holder's beats (every third of it) land in time on a loaded machine. */
const LEASE_MS = 1_200;

const backends = sharedRunStores('formation-journal');

describe.each(backends)('the formation journal on %s', (_name, open) => {
  // Run ids of this test only: a database shared with other test files may hold their jobs, which
  // every journal here sees as runs in flight (left alone).
  const id = (label: string) => `${label}-${randomUUID().slice(0, 8)}`;
  const job = (runId: string): JournaledFormation => ({
    runId,
    entityId: 'ada',
    conversationId: 'c-1',
    messages: [{ id: `${runId}:0`, role: 'user', text: 'I keep bees' }],
  });
  const journalOn = (store: RunStore, statuses: Map<string, AgentRunStatus | undefined>) =>
    new FormationJournal(store, randomUUID(), LEASE_MS, async (runId) =>
      statuses.has(runId) ? statuses.get(runId) : 'running',
    );
  const noted = async (store: RunStore, runIds: string[]) =>
    (await store.entries(FORMATION_PENDING))
      .map(([runId]) => runId)
      .filter((runId) => runIds.includes(runId))
      .sort();

  it('hands each of a silent holder’s jobs to exactly one process, and no live holder’s', async () => {
    const store = await open();
    const [completed, inFlight, failed, gone, alive] = [
      id('completed'),
      id('in-flight'),
      id('failed'),
      id('gone'),
      id('alive'),
    ];
    // A note is written once its turn committed: whatever its run's record says, the job is
    // formed; only a run whose records are gone (its entity erased) is not.
    const statuses = new Map<string, AgentRunStatus | undefined>([
      [completed, 'completed'],
      [inFlight, 'running'],
      [failed, 'failed'],
      [gone, undefined],
      [alive, 'completed'],
    ]);
    const dead = journalOn(store, statuses);
    for (const runId of [completed, inFlight, failed, gone]) await dead.note(job(runId));
    await dead.stop(); // the process dies: it says nothing more
    const [first, second] = [journalOn(store, statuses), journalOn(store, statuses)];
    await first.note(job(alive)); // a live process's job
    await sleep(LEASE_MS + 100);

    const runIds = [completed, inFlight, failed, gone, alive];
    // On a database other test files share, a pass may also take over jobs a stopped app of theirs
    // left noted (as any process of one app would): only this test's jobs are counted.
    const taken: string[] = [];
    const foreign = new Set<string>();
    const take = (recovered: JournaledFormation) =>
      runIds.includes(recovered.runId) ? taken.push(recovered.runId) : foreign.add(recovered.runId);
    await Promise.all([first, second].map((journal) => journal.recover(take)));
    const expected = [completed, inFlight, failed].sort();
    // Each of the silent holder's jobs went to exactly one of the two, the live holder's to none.
    expect(taken.sort()).toEqual(expected);
    // A vanished run's job is forgotten; the rest stay until done.
    expect(await noted(store, runIds)).toEqual([...expected, alive].sort());
    // The takers hold them now: neither takes the other's, even after a lease.
    await sleep(LEASE_MS + 100);
    await first.recover(take);
    await second.recover(take);
    expect(taken.sort()).toEqual(expected);
    await first.stop();
    for (const runId of [...runIds, ...foreign]) await second.forget(runId);
    await second.stop();
  });

  it('leaves a silent holder’s job noted when the taker has no room for it (its tenant full)', async () => {
    const store = await open();
    const [roomy, crowded] = [id('roomy'), id('crowded')];
    const statuses = new Map<string, AgentRunStatus | undefined>();
    const dead = journalOn(store, statuses);
    await dead.note({ ...job(roomy), entityId: 'a/ada' });
    await dead.note({ ...job(crowded), entityId: 'b/bo' });
    await dead.stop();
    await sleep(LEASE_MS + 100);
    const taker = journalOn(store, statuses);
    const taken: string[] = [];
    await taker.recover(
      (recovered) => taken.push(recovered.runId),
      (candidate) => !candidate.entityId.startsWith('b/'), // tenant b is full here
    );
    expect(taken.filter((runId) => [roomy, crowded].includes(runId))).toEqual([roomy]);
    expect(await noted(store, [roomy, crowded])).toEqual([roomy, crowded].sort());
    await taker.forget(roomy);
    await taker.forget(crowded);
    await taker.stop();
  });

  it('keeps what the job reads, and forgets a note it cannot read', async () => {
    const store = await open();
    const runId = id('kept');
    const statuses = new Map<string, AgentRunStatus>([[runId, 'completed']]);
    const dead = journalOn(store, statuses);
    await dead.note(job(runId));
    const broken = id('broken');
    await store.put(FORMATION_PENDING, broken, '{"not":"a job"}');
    await dead.stop();
    await sleep(LEASE_MS + 100);
    const taker = journalOn(store, statuses);
    const taken: JournaledFormation[] = [];
    await taker.recover((recovered) => taken.push(recovered));
    expect(taken).toEqual([job(runId)]);
    expect(await noted(store, [runId, broken])).toEqual([runId]);
    await taker.forget(runId);
    await taker.stop();
  });
});
