import { describe, expect, it } from '@jest/globals';
import { DEFAULT_ACTIVE_MEMORY_CAP, withinCap } from './active-memory-cap.js';
import { resolveFormation } from './formation.options.js';
import type { Consolidation } from './consolidation-rules.js';
import type { FormedMemory } from './formed-memory.interface.js';

const memory = (id: string, text: string, closed = false): FormedMemory => ({
  id,
  entityId: 'e1',
  text,
  kind: 'fact',
  sources: [{ conversationId: 'c1', messageIds: ['m1'], runId: 'r1' }],
  observedAt: 1,
  createdAt: 1,
  updatedAt: 1,
  ...(closed ? { validUntil: 1 } : {}),
});

describe('withinCap', () => {
  it('leaves a job within the cap as it is', () => {
    const job: Consolidation = {
      writes: [memory('a', 'one')],
      operations: [{ candidate: 0, op: 'ADD', memoryId: 'a' }],
    };
    expect(withinCap(job, { count: 0, bytes: 0 }, { count: 1, bytes: 3 })).toBe(job);
  });

  it('counts the room a retraction frees before weighing the ADDs, in candidate order', () => {
    const job: Consolidation = {
      writes: [memory('old', 'gone', true), memory('a', 'first'), memory('b', 'second')],
      operations: [
        { candidate: 0, op: 'ADD', memoryId: 'a' },
        { candidate: 1, op: 'INVALIDATE', target: 'old' },
        { candidate: 2, op: 'ADD', memoryId: 'b' },
      ],
    };
    const capped = withinCap(job, { count: 2, bytes: 10 }, { count: 2, bytes: 100 });
    expect(capped.operations.map((operation) => operation.op)).toEqual([
      'ADD',
      'INVALIDATE',
      'NONE',
    ]);
    expect(capped.writes.map((written) => written.id)).toEqual(['old', 'a']);
  });

  it('counts what an update adds to the bytes, and never drops the update itself', () => {
    const job: Consolidation = {
      writes: [memory('old', 'short', true), memory('new', 'a much longer text'), memory('a', 'x')],
      operations: [
        { candidate: 0, op: 'UPDATE', memoryId: 'new', target: 'old' },
        { candidate: 1, op: 'ADD', memoryId: 'a' },
      ],
    };
    const capped = withinCap(job, { count: 1, bytes: 5 }, { count: 10, bytes: 18 });
    expect(capped.operations[0]!.op).toBe('UPDATE');
    expect(capped.operations[1]).toEqual({
      candidate: 1,
      op: 'NONE',
      overruled:
        'the entity holds its maximum of 18 bytes of active memories (formation.maxActive)',
    });
    expect(capped.writes.map((written) => written.id)).toEqual(['old', 'new']);
  });

  it('a duplicate of an ADD that was dropped points at nothing', () => {
    const job: Consolidation = {
      writes: [memory('a', 'tea')],
      operations: [
        { candidate: 0, op: 'ADD', memoryId: 'a' },
        { candidate: 1, op: 'NONE', memoryId: 'a' },
      ],
    };
    const capped = withinCap(job, { count: 3, bytes: 0 }, { count: 3, bytes: 1_000 });
    expect(capped.writes).toEqual([]);
    expect(capped.operations[1]).toEqual({ candidate: 1, op: 'NONE' });
  });

  it('weighs what a job leaves active: an update chain takes one place, an ADD closed again none', () => {
    const job: Consolidation = {
      writes: [
        memory('x', 'Paris', true),
        memory('b', 'Berlin', true),
        memory('r', 'Rome'),
        memory('j', 'jazz', true),
        memory('c', 'chess'),
      ],
      operations: [
        { candidate: 0, op: 'UPDATE', memoryId: 'b', target: 'x' },
        { candidate: 1, op: 'UPDATE', memoryId: 'r', target: 'b' },
        { candidate: 2, op: 'ADD', memoryId: 'j' },
        { candidate: 3, op: 'INVALIDATE', target: 'j' },
        { candidate: 4, op: 'ADD', memoryId: 'c' },
      ],
    };
    // Held: x and one more. After the job: Rome replaces Paris, jazz is closed again, chess adds.
    expect(withinCap(job, { count: 2, bytes: 10 }, { count: 3, bytes: 100 })).toBe(job);
    const full = withinCap(job, { count: 2, bytes: 10 }, { count: 2, bytes: 100 });
    expect(full.operations.map((operation) => operation.op)).toEqual([
      'UPDATE',
      'UPDATE',
      'ADD',
      'INVALIDATE',
      'NONE',
    ]);
    expect(full.writes.map((written) => written.id)).toEqual(['x', 'b', 'r', 'j']);
  });

  it('names both limits when both are reached', () => {
    const job: Consolidation = {
      writes: [memory('a', 'one')],
      operations: [{ candidate: 0, op: 'ADD', memoryId: 'a' }],
    };
    expect(withinCap(job, { count: 1, bytes: 3 }, { count: 1, bytes: 3 }).operations[0]).toEqual({
      candidate: 0,
      op: 'NONE',
      overruled:
        'the entity holds its maximum of 1 active memories and 3 bytes of active memories (formation.maxActive)',
    });
  });
});

describe('the maxActive option', () => {
  it('keeps the default of a field left out or undefined', () => {
    const cap = (maxActive: object | undefined) =>
      resolveFormation({ maxActive: maxActive as never })!.settings.maxActive;
    expect(cap(undefined)).toEqual(DEFAULT_ACTIVE_MEMORY_CAP);
    expect(cap({ bytes: 100_000 })).toEqual({
      count: DEFAULT_ACTIVE_MEMORY_CAP.count,
      bytes: 100_000,
    });
    expect(cap({ count: undefined, bytes: undefined })).toEqual(DEFAULT_ACTIVE_MEMORY_CAP);
  });
});
