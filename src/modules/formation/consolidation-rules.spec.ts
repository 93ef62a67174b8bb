import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { consolidate, type ConsolidationInput, isActive, memoryId } from './consolidation-rules.js';
import type {
  ConsolidationChoice,
  FormedMemory,
  MemoryCandidate,
} from './formed-memory.interface.js';

const T0 = Date.UTC(2026, 0, 1);
const NOW = T0 + 86_400_000;

function memory(id: string, text: string, extra: Partial<FormedMemory> = {}): FormedMemory {
  return {
    id,
    entityId: 'u1',
    text,
    kind: 'fact',
    sources: [{ conversationId: 'c0', messageIds: ['m0'], runId: 'r0' }],
    observedAt: T0,
    createdAt: T0,
    updatedAt: T0,
    ...extra,
  };
}

function input(
  candidates: MemoryCandidate[],
  choices: ConsolidationChoice[],
  neighbours: FormedMemory[] = [],
  extra: Partial<ConsolidationInput> = {},
): ConsolidationInput {
  return {
    entityId: 'u1',
    jobId: 'job-1',
    conversationId: 'c1',
    runId: 'r1',
    messageIds: ['m1', 'm2'],
    now: NOW,
    observedAt: NOW - 1_000,
    candidates,
    choices,
    neighbours,
    maxCandidates: 20,
    ...extra,
  };
}

const fact = (text: string, extra: Partial<MemoryCandidate> = {}): MemoryCandidate => ({
  text,
  kind: 'fact',
  messageIds: ['m1'],
  ...extra,
});

/** The entity's memories after a job: the neighbours with the job's writes laid over them. */
function after(neighbours: FormedMemory[], writes: FormedMemory[]): Map<string, FormedMemory> {
  const all = new Map(neighbours.map((m) => [m.id, m]));
  for (const write of writes) all.set(write.id, write);
  return all;
}

describe('consolidate: the rules no model answer can break', () => {
  it('adds a new fact with its source, and names it from the job and position', () => {
    const { writes, operations } = consolidate(
      input([fact('Ada lives in Paris')], [{ op: 'ADD' }]),
    );
    expect(operations).toEqual([{ candidate: 0, op: 'ADD', memoryId: memoryId('job-1', 0) }]);
    expect(writes).toEqual([
      {
        id: memoryId('job-1', 0),
        entityId: 'u1',
        text: 'Ada lives in Paris',
        kind: 'fact',
        sources: [{ conversationId: 'c1', messageIds: ['m1'], runId: 'r1' }],
        observedAt: NOW - 1_000,
        createdAt: NOW,
        updatedAt: NOW,
      },
    ]);
  });

  it('the same fact twice is one memory: a duplicate (even reworded) is NONE', () => {
    const held = memory('a', 'Ada likes jazz.');
    for (const text of [
      'Ada likes jazz',
      'ada LIKES jazz!',
      'The Ada likes jazz',
      'Jazz, Ada likes',
    ])
      for (const choice of [{ op: 'ADD' }, { op: 'NONE' }] as ConsolidationChoice[]) {
        const { writes, operations } = consolidate(input([fact(text)], [choice], [held]));
        expect(writes).toEqual([]);
        expect(operations[0]).toMatchObject({ op: 'NONE', memoryId: 'a' });
      }
  });

  it('a model answer that would delete or replace on a duplicate is refused, with the reason', () => {
    const held = memory('a', 'Ada likes jazz');
    for (const choice of [
      { op: 'UPDATE', target: 'a' },
      { op: 'INVALIDATE', target: 'a' },
    ] as ConsolidationChoice[]) {
      const { writes, operations } = consolidate(input([fact('Ada likes jazz')], [choice], [held]));
      expect(writes).toEqual([]);
      expect(operations).toEqual([
        { candidate: 0, op: 'NONE', memoryId: 'a', overruled: 'a duplicate of a changes nothing' },
      ]);
    }
  });

  it('nearly the same words: a duplicate when added, a refinement when the model updates', () => {
    const held = memory('a', 'Ada works as a nurse at the city hospital');
    const refined = fact('Ada works as a senior nurse at the city hospital');
    const added = consolidate(input([refined], [{ op: 'ADD' }], [held]));
    expect(added.operations[0]).toMatchObject({ op: 'NONE', memoryId: 'a' });
    const updated = consolidate(input([refined], [{ op: 'UPDATE', target: 'a' }], [held]));
    expect(updated.operations[0]).toMatchObject({ op: 'UPDATE', target: 'a' });
    // A change of tense is not a duplicate: "was" is not filler.
    const past = consolidate(
      input([fact('Ada was a nurse')], [{ op: 'ADD' }], [memory('b', 'Ada is a nurse')]),
    );
    expect(past.operations[0]!.op).toBe('ADD');
  });

  it('a negation is never a duplicate of the statement it negates', () => {
    const held = memory('a', 'Ada likes jazz');
    const { operations } = consolidate(
      input([fact('Ada does not like jazz')], [{ op: 'UPDATE', target: 'a' }], [held]),
    );
    expect(operations[0]!.op).toBe('UPDATE');
  });

  it('a correction supersedes: one active memory and one closed, both kept with their history', () => {
    const held = memory('a', 'Ada lives in Paris');
    const moved = T0 + 3_600_000;
    const { writes, operations } = consolidate(
      input(
        [fact('Ada lives in Berlin', { validFrom: moved })],
        [{ op: 'UPDATE', target: 'a' }],
        [held],
      ),
    );
    const id = memoryId('job-1', 0);
    expect(operations).toEqual([{ candidate: 0, op: 'UPDATE', memoryId: id, target: 'a' }]);
    const state = after([held], writes);
    expect(state.get('a')).toEqual({
      ...held,
      validUntil: moved,
      supersededBy: id,
      updatedAt: NOW,
    });
    expect(state.get(id)).toMatchObject({
      text: 'Ada lives in Berlin',
      supersedes: 'a',
      validFrom: moved,
    });
    expect([...state.values()].filter((m) => isActive(m, NOW)).map((m) => m.id)).toEqual([id]);
  });

  it('only a retraction invalidates; the memory is kept, closed', () => {
    const held = memory('a', 'Ada likes jazz');
    const retraction = fact('Forget that I like jazz', { retraction: true });
    const { writes, operations } = consolidate(
      input([retraction], [{ op: 'INVALIDATE', target: 'a' }], [held]),
    );
    expect(operations).toEqual([{ candidate: 0, op: 'INVALIDATE', target: 'a' }]);
    // Closed from when the user said it, not from when the job ran.
    expect(writes).toEqual([{ ...held, validUntil: NOW - 1_000, updatedAt: NOW }]);
    expect(isActive(writes[0]!, NOW)).toBe(false);
  });

  it("a non-retraction's INVALIDATE becomes an update; a retraction never adds", () => {
    const held = memory('a', 'Ada lives in Paris');
    const moved = consolidate(
      input([fact('Ada lives in Rome')], [{ op: 'INVALIDATE', target: 'a' }], [held]),
    );
    expect(moved.operations[0]).toMatchObject({ op: 'UPDATE', target: 'a' });
    expect(moved.operations[0]!.overruled).toMatch(/only a retraction invalidates/);
    const retracted = consolidate(
      input([fact('I never said that', { retraction: true })], [{ op: 'ADD' }], [held]),
    );
    expect(retracted.writes).toEqual([]);
    expect(retracted.operations[0]).toMatchObject({
      op: 'NONE',
      overruled: 'a retraction only invalidates',
    });
  });

  it("an UPDATE of something that is not the entity's active memory adds instead", () => {
    const other = memory('b', 'Bob lives in Oslo', { entityId: 'u2' });
    const closed = memory('c', 'Ada lives in Lyon', { supersededBy: 'x', validUntil: T0 + 1 });
    for (const target of ['b', 'c', 'nope']) {
      const { writes, operations } = consolidate(
        input([fact('Ada lives in Nice')], [{ op: 'UPDATE', target }], [other, closed]),
      );
      expect(operations[0]).toMatchObject({
        op: 'ADD',
        overruled: `${target} is not an active memory of the entity: added`,
      });
      expect(writes.map((m) => m.id)).toEqual([memoryId('job-1', 0)]);
    }
  });

  it('refuses candidates resting on messages outside the job, without words, or over the cap', () => {
    const { writes, operations } = consolidate(
      input(
        [
          fact('Ada is a pilot', { messageIds: ['elsewhere'] }),
          fact('!!!'),
          fact('a'),
          fact('Ada flies'),
        ],
        [{ op: 'ADD' }, { op: 'ADD' }, { op: 'ADD' }, { op: 'ADD' }],
        [],
        { maxCandidates: 3 },
      ),
    );
    expect(writes).toEqual([]);
    expect(operations.map((o) => o.overruled)).toEqual([
      'the candidate rests on messages outside the job',
      'the candidate has no words',
      'the candidate has no words',
      "over the job's cap of 3",
    ]);
  });

  it('two updates of one memory in a job chain: the second supersedes the first', () => {
    const held = memory('a', 'Ada lives in Paris');
    const { writes, operations } = consolidate(
      input(
        [fact('Ada lives in Berlin'), fact('Ada lives in Madrid')],
        [
          { op: 'UPDATE', target: 'a' },
          { op: 'UPDATE', target: 'a' },
        ],
        [held],
      ),
    );
    const [first, second] = [memoryId('job-1', 0), memoryId('job-1', 1)];
    expect(operations.map((o) => [o.op, o.target])).toEqual([
      ['UPDATE', 'a'],
      ['UPDATE', first],
    ]);
    const state = after([held], writes);
    expect(state.get(first)).toMatchObject({ supersedes: 'a', supersededBy: second });
    expect([...state.values()].filter((m) => isActive(m, NOW)).map((m) => m.text)).toEqual([
      'Ada lives in Madrid',
    ]);
  });
});

describe('consolidate: properties over any candidates and any model answer', () => {
  const texts = [
    'Ada lives in Paris',
    'Ada lives in Berlin',
    'Ada likes jazz',
    'Ada does not like jazz',
    'Ada is a pilot',
    'Ada has a cat',
    'the Ada likes jazz',
  ];
  const ids = ['n0', 'n1', 'n2', 'elsewhere', memoryId('job-1', 0), memoryId('job-1', 1)];
  const candidate = fc.record({
    text: fc.constantFrom(...texts, 'forget the cat'),
    kind: fc.constantFrom('fact', 'preference'),
    messageIds: fc.constantFrom(['m1'], ['m2', 'm1'], ['x']).map((ids): string[] => [...ids]),
    retraction: fc.boolean(),
  });
  const choice: fc.Arbitrary<ConsolidationChoice> = fc.oneof(
    fc.constant({ op: 'ADD' as const }),
    fc.constant({ op: 'NONE' as const }),
    fc.constantFrom(...ids).map((target) => ({ op: 'UPDATE' as const, target })),
    fc.constantFrom(...ids).map((target) => ({ op: 'INVALIDATE' as const, target })),
  );
  const neighbours = fc
    .subarray(
      texts
        .slice(0, 6)
        .map((text, i) => memory(`n${i}`, text, { entityId: i === 2 ? 'u2' : 'u1' })),
    )
    .map((list) => list);
  const job = fc.tuple(fc.array(fc.tuple(candidate, choice), { maxLength: 6 }), neighbours);

  it('never deletes, never edits what a memory says, never touches another entity; retries agree', () => {
    fc.assert(
      fc.property(job, ([pairs, held]) => {
        const run = input(
          pairs.map(([c]) => c),
          pairs.map(([, c]) => c),
          held,
        );
        const result = consolidate(run);
        expect(consolidate(run)).toEqual(result);
        const before = new Map(held.map((m) => [m.id, m]));
        for (const write of result.writes) {
          expect(write.entityId).toBe('u1');
          const old = before.get(write.id);
          if (!old) continue;
          // Only closing fields change on a memory that existed: its statement and sources stay.
          expect(statement(write)).toEqual(statement(old));
          expect(isActive(old, NOW) && !isActive(write, NOW)).toBe(true);
        }
      }),
      { numRuns: 500, seed: 42 },
    );
  });

  it('a duplicate never changes anything, an invalidation is always a retraction, every update leaves one active version', () => {
    fc.assert(
      fc.property(job, ([pairs, held]) => {
        const candidates = pairs.map(([c]) => c);
        const result = consolidate(
          input(
            candidates,
            pairs.map(([, c]) => c),
            held,
          ),
        );
        const state = after(held, result.writes);
        for (const op of result.operations) {
          if (op.op === 'INVALIDATE') expect(candidates[op.candidate]!.retraction).toBe(true);
          if (op.op === 'UPDATE') {
            expect(isActive(state.get(op.target!)!, NOW)).toBe(false);
            expect(state.get(op.target!)!.supersededBy).toBeDefined();
          }
        }
        // No two active memories of the entity say the same thing that the job wrote.
        const active = [...state.values()].filter((m) => m.entityId === 'u1' && isActive(m, NOW));
        const written = new Set(result.writes.map((m) => m.id));
        const fresh = active.filter((m) => written.has(m.id));
        for (const m of fresh)
          for (const other of active)
            if (other.id !== m.id) expect(normalize(other.text) === normalize(m.text)).toBe(false);
      }),
      { numRuns: 500, seed: 7 },
    );
  });
});

/** A memory without the fields closing it may change. */
const statement = (memory: FormedMemory) =>
  Object.fromEntries(
    Object.entries(memory).filter(
      ([name]) => !['validUntil', 'supersededBy', 'updatedAt'].includes(name),
    ),
  );

const normalize = (text: string) => text.toLowerCase().replace(/^the /, '');
