import { beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { DEFAULT_ACTIVE_MEMORY_CAP } from '../../src/modules/formation/active-memory-cap.js';
import type { FormedMemories } from '../../src/modules/formation/formed-memories.js';
import {
  DEFAULT_FORMATION_SETTINGS,
  type FormationJob,
  MemoryFormation,
} from '../../src/modules/formation/memory-formation.js';
import { PlainStatementsFormationModel } from '../../src/modules/formation/plain-statements.formation-model.js';
import type { LongtermMemoryService } from '../../src/modules/longterm/longterm-memory.service.js';
import { FORMATION_BACKENDS, dyingAt, formationTier, stepRecorder } from './formation-backends.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 5, 1);

describe.each(FORMATION_BACKENDS)("an entity's cap on active memories, on %s", (_name, uri) => {
  const tier = formationTier(uri);
  let longterm: LongtermMemoryService;
  let memories: FormedMemories;
  beforeAll(() => {
    ({ longterm, memories } = tier());
  });

  let turns = 0;
  async function jobOf(entityId: string, text: string, day: number): Promise<FormationJob> {
    turns += 1;
    return {
      jobId: `cap-run-${turns}/f1`,
      entityId,
      conversationId: 'c1',
      runId: `cap-run-${turns}`,
      messages: [{ id: `m${turns}`, role: 'user', text }],
      context: [],
      observedAt: T0 + day * DAY,
      seq: await memories.nextSeq(entityId),
    };
  }
  /** The texts of the entity's active memories, in code-unit order. */
  const active = async (entityId: string) =>
    (await memories.list(entityId, { state: 'active', limit: 50 })).memories
      .map((memory) => memory.text)
      .sort();
  const sorted = (texts: string[]) => [...texts].sort();
  const formation = (maxActive: { count: number; bytes: number }, from = memories) =>
    new MemoryFormation(from, new PlainStatementsFormationModel(), stepRecorder(), {
      ...DEFAULT_FORMATION_SETTINGS,
      maxActive,
    });

  it('adds nothing past the count; corrections and retractions still apply, and free room', async () => {
    const ada = `ada-${randomUUID()}`;
    const capped = formation({ count: 2, bytes: DEFAULT_ACTIVE_MEMORY_CAP.bytes });
    const first = await capped.run(
      await jobOf(ada, 'My name is Ada. I live in Paris. I like jazz.', 1),
    );
    expect(first.status).toBe('written');
    expect(await active(ada)).toEqual(
      sorted(["The user's name is Ada", 'The user lives in Paris']),
    );
    expect(first.record.operations.map((operation) => operation.op)).toEqual([
      'ADD',
      'ADD',
      'NONE',
    ]);
    expect(first.record.operations[2]!.overruled).toMatch(
      /maximum of 2 active memories \(formation\.maxActive\)/,
    );
    // The record stored is the one returned: what the routes show says why jazz is missing.
    expect((await memories.job(ada, first.record.jobId))!.operations).toEqual(
      first.record.operations,
    );

    // Full, a correction still supersedes (the count stays), and a retraction frees a place.
    await capped.run(await jobOf(ada, 'Actually I moved to Berlin.', 2));
    expect(await active(ada)).toEqual(
      sorted(["The user's name is Ada", 'The user lives in Berlin']),
    );
    await capped.run(await jobOf(ada, 'Forget that I live in Berlin.', 3));
    expect(await active(ada)).toEqual(sorted(["The user's name is Ada"]));
    const later = await capped.run(await jobOf(ada, 'I like jazz. I like tea.', 4));
    expect(later.record.operations.map((operation) => operation.op)).toEqual(['ADD', 'NONE']);
    expect(await active(ada)).toEqual(sorted(["The user's name is Ada", 'The user likes jazz']));
    // Every version is kept: the cap counts active ones only.
    expect(
      (await memories.list(ada, { state: 'all', limit: 50 })).memories.length,
    ).toBeGreaterThanOrEqual(4);
  });

  it('adds nothing past the bytes of text', async () => {
    const bea = `bea-${randomUUID()}`;
    const name = "The user's name is Bea";
    const capped = formation({ count: 100, bytes: Buffer.byteLength(name) + 10 });
    const job = await capped.run(await jobOf(bea, 'My name is Bea. I live in Lisbon.', 1));
    expect(await active(bea)).toEqual(sorted([name]));
    expect(job.record.operations[1]).toMatchObject({
      op: 'NONE',
      overruled: expect.stringMatching(/maximum of \d+ bytes of active memories/),
    });
  });

  it('a retry after a crash between the closings and the new versions counts what the first attempt counted, across an update chain', async () => {
    const dee = `dee-${randomUUID()}`;
    const cap = { count: 3, bytes: DEFAULT_ACTIVE_MEMORY_CAP.bytes };
    await formation(cap).run(await jobOf(dee, 'My name is Dee. I live in Paris.', 1));
    // The first attempt dies after it stored its closings, before its new versions.
    const failing = dyingAt(memories, longterm, 'saveMany', (_records, call) => call === 2);
    const steps = stepRecorder();
    const model = new PlainStatementsFormationModel();
    const settings = { ...DEFAULT_FORMATION_SETTINGS, maxActive: cap };
    const job = await jobOf(dee, 'I live in Berlin. I live in Rome. I like chess.', 2);
    await expect(new MemoryFormation(failing, model, steps, settings).run(job)).rejects.toThrow(
      'process killed',
    );
    const retried = await new MemoryFormation(memories, model, steps, settings).run(job);
    expect(retried.status).toBe('written');
    expect(retried.record.operations.map((operation) => operation.op)).toEqual([
      'UPDATE',
      'UPDATE',
      'ADD',
    ]);
    expect(await active(dee)).toEqual(
      sorted(["The user's name is Dee", 'The user lives in Rome', 'The user likes chess']),
    );
  });

  it('counts past one page of versions, and a cap lowered below what is held only stops adding', async () => {
    const eve = `eve-${randomUUID()}`;
    const now = T0 + DAY;
    const held = Array.from({ length: 620 }, (_, i) => ({
      id: `held${String(i).padStart(4, '0')}`,
      entityId: eve,
      text: `The user keeps fact number ${i}`,
      kind: 'fact',
      sources: [{ conversationId: 'c0', messageIds: ['m0'], runId: 'r0' }],
      observedAt: now,
      createdAt: now,
      updatedAt: now,
    }));
    expect(
      await memories.saveVersions(eve, { seq: await memories.nextSeq(eve), at: now }, held),
    ).toBe(true);
    const roomForOne = await formation({ count: 621, bytes: 10_000_000 }).run(
      await jobOf(eve, 'My name is Eve. I live in Oslo.', 2),
    );
    expect(roomForOne.record.operations.map((operation) => operation.op)).toEqual(['ADD', 'NONE']);
    const lowered = formation({ count: 10, bytes: 10_000_000 });
    const full = await lowered.run(await jobOf(eve, 'I like tea.', 3));
    expect(full.record.operations).toEqual([
      expect.objectContaining({ op: 'NONE', overruled: expect.stringContaining('maximum of 10') }),
    ]);
    // Over the cap, a correction still applies, and nothing held was evicted.
    await lowered.run(await jobOf(eve, 'Actually my name is Eva.', 4));
    const names = (await memories.list(eve, { state: 'active', limit: 1_000 })).memories.filter(
      (memory) => memory.text.includes('name'),
    );
    expect(names.map((memory) => memory.text)).toEqual(["The user's name is Eva"]);
    expect((await memories.list(eve, { state: 'active', limit: 1_000 })).memories).toHaveLength(
      621,
    );
  });

  it('a job retried after a crash mid-write counts what its first attempt counted', async () => {
    const cy = `cy-${randomUUID()}`;
    await formation({ count: 3, bytes: DEFAULT_ACTIVE_MEMORY_CAP.bytes }).run(
      await jobOf(cy, 'My name is Cy.', 1),
    );
    // The first attempt dies after its memories are written, before the job's record is.
    const failing = dyingAt(memories, longterm, 'save', (record) => record.key.startsWith('job/'));
    const steps = stepRecorder();
    const model = new PlainStatementsFormationModel();
    const settings = {
      ...DEFAULT_FORMATION_SETTINGS,
      maxActive: { count: 3, bytes: DEFAULT_ACTIVE_MEMORY_CAP.bytes },
    };
    const job = await jobOf(cy, 'I live in Rome. I like chess. I like tea.', 2);
    await expect(new MemoryFormation(failing, model, steps, settings).run(job)).rejects.toThrow(
      'process killed',
    );
    // Its two new memories are stored now; counted as the job's own, they leave the same room.
    const retried = await new MemoryFormation(memories, model, steps, settings).run(job);
    expect(retried.status).toBe('written');
    expect(retried.record.operations.map((operation) => operation.op)).toEqual([
      'ADD',
      'ADD',
      'NONE',
    ]);
    expect(await active(cy)).toEqual(
      sorted(["The user's name is Cy", 'The user likes chess', 'The user lives in Rome']),
    );
  });
});
