import { describe, expect, it } from '@jest/globals';
import { withinCap } from './active-memory-cap.js';
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
});
