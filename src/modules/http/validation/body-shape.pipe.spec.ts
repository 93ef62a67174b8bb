import { describe, expect, it } from '@jest/globals';
import { BadRequestException } from '@nestjs/common';
import { BodyShapePipe, shapeProblem } from './body-shape.pipe.js';

const nested = (depth: number): unknown => JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);

describe('BodyShapePipe', () => {
  it('measures depth without recursion, even a million levels deep', () => {
    expect(shapeProblem(nested(100), 100)).toBeUndefined();
    expect(shapeProblem(nested(101), 100)).toContain('deeper than 100');
    // Four containers deep: object, object, array, object.
    expect(shapeProblem({ a: { b: [1, { c: 2 }] } }, 4)).toBeUndefined();
    expect(shapeProblem({ a: { b: [1, { c: 2 }] } }, 3)).toContain('deeper');
    expect(shapeProblem(nested(1_000_000), 100)).toContain('deeper');
    expect(shapeProblem('text', 0)).toBeUndefined();
  });

  it('refuses prototype keys at any level, as JSON.parse makes them (own properties)', () => {
    expect(shapeProblem(JSON.parse('{"value":{"__proto__":{"x":1}}}'), 100)).toContain('__proto__');
    expect(shapeProblem({ a: [{ constructor: 1 }] }, 100)).toContain('constructor');
    expect(shapeProblem({ prototype: 1 }, 100)).toContain('prototype');
    expect(shapeProblem({ proto: 1, constructors: [1] }, 100)).toBeUndefined();
  });

  it('answers 400 for a body, and leaves queries and params alone', () => {
    const pipe = new BodyShapePipe(2);
    expect(() => pipe.transform(nested(3), { type: 'body' })).toThrow(BadRequestException);
    expect(pipe.transform(nested(2), { type: 'body' })).toEqual(nested(2));
    expect(pipe.transform(nested(3), { type: 'query' })).toEqual(nested(3));
  });
});
