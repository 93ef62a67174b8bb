import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FormationAnswerError } from '../../src/modules/formation/formation-answers.js';
import type { MemoryFormationModel } from '../../src/modules/formation/formation-model.interface.js';
import { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import {
  type FormationJob,
  MemoryFormation,
} from '../../src/modules/formation/memory-formation.js';
import {
  MemoryNotActiveError,
  correctMemory,
  forgetMemory,
} from '../../src/modules/formation/memory-curation.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { FORMATION_BACKENDS, dyingAt, formationTier, stepRecorder } from './formation-backends.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);

/** The demo model, counting its calls, optionally slow (each step) or failing on extraction. */
class CountingModel implements MemoryFormationModel {
  readonly id = 'counting';
  calls = 0;
  private readonly inner = new PlainStatementsFormationModel();
  constructor(private readonly behaviour: { delayMs?: number; fail?: boolean } = {}) {}
  async extract(input: Parameters<MemoryFormationModel['extract']>[0]) {
    this.calls += 1;
    if (this.behaviour.delayMs) await sleep(this.behaviour.delayMs);
    if (this.behaviour.fail) throw new FormationAnswerError('extraction', 'not JSON');
    return this.inner.extract(input);
  }
  async choose(input: Parameters<MemoryFormationModel['choose']>[0]) {
    this.calls += 1;
    // Slow after the neighbours were read: a job beside it would read them before this one writes.
    if (this.behaviour.delayMs) await sleep(this.behaviour.delayMs);
    return this.inner.choose(input);
  }
}

describe.each(FORMATION_BACKENDS)('memory formation on %s', (_name, uri) => {
  const tier = formationTier(uri);
  let longterm: LongtermMemoryService;
  let memories: FormedMemories;
  beforeAll(() => {
    ({ longterm, memories } = tier());
  });

  let turns = 0;
  /** A job for one user message of `entityId`, its seq taken now (as a queue does). */
  async function jobOf(entityId: string, text: string, day: number): Promise<FormationJob> {
    turns += 1;
    return {
      jobId: `run-${turns}/f1`,
      entityId,
      conversationId: 'c1',
      runId: `run-${turns}`,
      messages: [{ id: `m${turns}`, role: 'user', text }],
      context: [],
      observedAt: T0 + day * DAY,
      seq: await memories.nextSeq(entityId),
    };
  }
  const texts = async (entityId: string, state: 'active' | 'all' = 'active') =>
    (await memories.list(entityId, { state, limit: 50 })).memories.map((m) => m.text).sort();

  it('forms, supersedes and retracts memories from turns, with their sources and history', async () => {
    const ada = `ada-${randomUUID()}`;
    const formation = new MemoryFormation(
      memories,
      new PlainStatementsFormationModel(),
      stepRecorder(),
    );
    const first = await formation.run(
      await jobOf(ada, 'My name is Ada. I live in Paris. I like jazz.', 1),
    );
    expect(first.status).toBe('written');
    expect(first.record.operations.map((o) => o.op)).toEqual(['ADD', 'ADD', 'ADD']);
    await formation.run(await jobOf(ada, 'Actually I moved to Berlin last month.', 40));
    await formation.run(await jobOf(ada, 'Forget that I like jazz.', 41));
    expect(await texts(ada)).toEqual(['The user lives in Berlin', "The user's name is Ada"]);
    const berlin = (await memories.list(ada, { limit: 50 })).memories.find((m) =>
      m.text.includes('Berlin'),
    )!;
    expect(berlin.validFrom).toBe(T0 + 10 * DAY);
    const history = await memories.history(ada, berlin.id);
    expect(history.map((m) => [m.text, m.sources[0]!.messageIds[0]])).toEqual([
      ['The user lives in Paris', expect.stringMatching(/^m\d+$/)],
      ['The user lives in Berlin', berlin.sources[0]!.messageIds[0]],
    ]);
    expect(history[0]!.validUntil).toBe(T0 + 10 * DAY);
    // What held on day 5: Paris and jazz.
    const then = (await memories.list(ada, { asOf: T0 + 5 * DAY, limit: 50 })).memories;
    expect(then.map((m) => m.text).sort()).toEqual([
      'The user likes jazz',
      'The user lives in Paris',
      "The user's name is Ada",
    ]);
  });

  it('exactly once: a job retried after a crash mid-write ends as one clean run, without asking the model again', async () => {
    const clean = `clean-${randomUUID()}`;
    const crashed = `crashed-${randomUUID()}`;
    const say = 'My name is Ada. I live in Paris.';
    const plain = new MemoryFormation(
      memories,
      new PlainStatementsFormationModel(),
      stepRecorder(),
    );
    await plain.run(await jobOf(clean, say, 1));

    const model = new CountingModel();
    const steps = stepRecorder();
    // The first attempt dies after its memories are written, before the job's record is.
    const failing = dyingAt(memories, longterm, 'save', (record) => record.key.startsWith('job/'));
    const job = await jobOf(crashed, say, 1);
    await expect(new MemoryFormation(failing, model, steps).run(job)).rejects.toThrow(
      'process killed',
    );
    expect(model.calls).toBe(2);
    expect(await memories.job(crashed, job.jobId)).toBeNull();
    const retried = await new MemoryFormation(memories, model, steps).run(job);
    expect(retried.status).toBe('written');
    expect(model.calls).toBe(2);
    const strip = async (entityId: string) =>
      // In text order: a list is in id order, and ids come from each job's own id.
      (await memories.list(entityId, { state: 'all', limit: 50 })).memories
        .sort((a, b) => a.text.localeCompare(b.text))
        .map(({ text, kind, validFrom, validUntil }) => ({ text, kind, validFrom, validUntil }));
    expect(await strip(crashed)).toEqual(await strip(clean));
    // Once its record exists, the job is done: another attempt writes and asks nothing.
    const again = await new MemoryFormation(memories, model, steps).run(job);
    expect([again.status, model.calls]).toEqual(['already-written', 2]);
  });

  it('a turn that changes one memory twice writes both versions, the first closed by the second', async () => {
    const fay = `fay-${randomUUID()}`;
    const formation = new MemoryFormation(
      memories,
      new PlainStatementsFormationModel(),
      stepRecorder(),
    );
    await formation.run(await jobOf(fay, 'My name is Fay. I live in Paris.', 1));
    const moved = await formation.run(
      await jobOf(fay, 'I live in Berlin. I live in Rome. I like chess.', 2),
    );
    expect(moved.status).toBe('written');
    expect(moved.record.operations.map((operation) => operation.op)).toEqual([
      'UPDATE',
      'UPDATE',
      'ADD',
    ]);
    expect(await texts(fay)).toEqual(
      ["The user's name is Fay", 'The user likes chess', 'The user lives in Rome'].sort(),
    );
    const rome = (await memories.list(fay, { limit: 50 })).memories.find((m) =>
      m.text.endsWith('Rome'),
    )!;
    expect((await memories.history(fay, rome.id)).map((version) => version.text)).toEqual([
      'The user lives in Paris',
      'The user lives in Berlin',
      'The user lives in Rome',
    ]);
  });

  it('erasure wins: a job queued before deleteEntity writes nothing', async () => {
    const eve = `eve-${randomUUID()}`;
    const formation = new MemoryFormation(
      memories,
      new PlainStatementsFormationModel(),
      stepRecorder(),
    );
    const job = await jobOf(eve, 'My name is Eve. I live in Oslo.', 1);
    await longterm.deleteEntity(eve);
    expect((await formation.run(job)).status).toBe('refused');
    expect(await texts(eve, 'all')).toEqual([]);
    expect(await memories.job(eve, job.jobId)).toBeNull();
  });

  it("runs an entity's jobs one at a time: the second sees what the first formed", async () => {
    const bob = `bob-${randomUUID()}`;
    const formation = new MemoryFormation(
      memories,
      new CountingModel({ delayMs: 150 }),
      stepRecorder(),
    );
    const [first, second] = await Promise.all([
      formation.run(await jobOf(bob, 'I live in Lisbon.', 1)),
      formation.run(await jobOf(bob, 'I moved to Porto.', 2)),
    ]);
    expect(first.record.operations.map((o) => o.op)).toEqual(['ADD']);
    expect(second.record.operations.map((o) => o.op)).toEqual(['UPDATE']);
    expect(await texts(bob)).toEqual(['The user lives in Porto']);
  });

  it.each([
    ['taken before the correction', false],
    ['taken after the correction', true],
  ])(
    'a job writes nothing when a memory it would close was corrected since it read it (its seq %s)',
    async (_order, laterSeq) => {
      const fay = `fay-${randomUUID()}`;
      const plain = new MemoryFormation(
        memories,
        new PlainStatementsFormationModel(),
        stepRecorder(),
      );
      await plain.run(await jobOf(fay, 'I live in Lisbon.', 1));
      const [lisbon] = (await memories.list(fay, { limit: 10 })).memories;
      // The job reads Lisbon as active, then waits before choosing: a correction lands meanwhile.
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      const inner = new PlainStatementsFormationModel();
      const held: MemoryFormationModel = {
        id: 'held',
        extract: (input) => inner.extract(input),
        choose: async (input) => {
          await gate;
          return inner.choose(input);
        },
      };
      const porto = await jobOf(fay, 'I moved to Porto.', 2);
      const job = new MemoryFormation(memories, held, stepRecorder()).run(porto);
      await sleep(50);
      await correctMemory(memories, fay, lisbon!.id, 'The user lives in Lisbon, Alfama');
      // A job queued after the correction began (its seq above the correction's) read before it.
      if (laterSeq) porto.seq = await memories.nextSeq(fay);
      open();
      expect((await job).status).toBe('refused');
      // Nothing of the job: one active version, the correction's; no Porto anywhere.
      expect(await texts(fay)).toEqual(['The user lives in Lisbon, Alfama']);
      expect((await texts(fay, 'all')).filter((text) => text.includes('Porto'))).toEqual([]);
    },
  );

  it('two corrections, or a correction and a retraction, of one memory at once: one stands', async () => {
    const gus = `gus-${randomUUID()}`;
    const plain = new MemoryFormation(
      memories,
      new PlainStatementsFormationModel(),
      stepRecorder(),
    );
    await plain.run(await jobOf(gus, 'I live in Rome. I like opera.', 1));
    const listed = (await memories.list(gus, { limit: 10 })).memories;
    const rome = listed.find((m) => m.text.includes('Rome'))!;
    const opera = listed.find((m) => m.text.includes('opera'))!;
    const corrections = await Promise.allSettled([
      correctMemory(memories, gus, rome.id, 'The user lives in Milan'),
      correctMemory(memories, gus, rome.id, 'The user lives in Turin'),
    ]);
    expect(corrections.map((c) => c.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = corrections.find((c) => c.status === 'rejected')!;
    expect((rejected as PromiseRejectedResult).reason).toBeInstanceOf(MemoryNotActiveError);
    const both = await Promise.allSettled([
      correctMemory(memories, gus, opera.id, 'The user likes jazz'),
      forgetMemory(memories, gus, opera.id),
    ]);
    expect(both.map((c) => c.status).sort()).toEqual(['fulfilled', 'rejected']);
    const active = await texts(gus);
    expect(active.filter((text) => /Milan|Turin/.test(text))).toHaveLength(1);
    expect(active.filter((text) => /opera|jazz/.test(text)).length).toBeLessThanOrEqual(1);
    expect(active).not.toContain('The user likes opera');
  });

  it('a model that fails writes nothing and leaves the job to run again', async () => {
    const cy = `cy-${randomUUID()}`;
    const steps = stepRecorder();
    const job = await jobOf(cy, 'My name is Cy.', 1);
    await expect(
      new MemoryFormation(memories, new CountingModel({ fail: true }), steps).run(job),
    ).rejects.toBeInstanceOf(FormationAnswerError);
    expect(await texts(cy, 'all')).toEqual([]);
    expect(await memories.job(cy, job.jobId)).toBeNull();
    const rerun = await new MemoryFormation(memories, new CountingModel(), steps).run(job);
    expect(rerun.status).toBe('written');
    expect(await texts(cy)).toEqual(["The user's name is Cy"]);
  });
});
