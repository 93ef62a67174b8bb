import { type ArgumentMetadata, BadRequestException, type PipeTransform } from '@nestjs/common';

/** How deep a request body may nest (objects and arrays): far beyond any real turn or value. */
export const MAX_JSON_DEPTH = 100;

/** Keys a body may not hold anywhere: they name or reach an object's prototype. */
export const PROTOTYPE_KEYS: readonly string[] = ['__proto__', 'constructor', 'prototype'];

/**
 * Checks a request body's shape before validation, walking it iteratively: nested deeper than
 * {@link MAX_JSON_DEPTH} is a 400 (class-transformer and the stores walk values recursively, so a
 * few kilobytes of `[[[…` would otherwise exhaust the stack); a key of {@link PROTOTYPE_KEYS} at any
 * level is a 400 (class-transformer drops such keys, which would lose data silently, and they are
 * the vector of prototype pollution).
 */
export class BodyShapePipe implements PipeTransform {
  constructor(private readonly maxDepth = MAX_JSON_DEPTH) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    if (metadata.type !== 'body') return value;
    const problem = shapeProblem(value, this.maxDepth);
    if (problem) throw new BadRequestException(problem);
    return value;
  }
}

/** What is wrong with a body's shape, or `undefined`; walked with an explicit stack. */
export function shapeProblem(value: unknown, maxDepth: number): string | undefined {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= maxDepth) return `body is nested deeper than ${maxDepth} levels`;
    const children = Array.isArray(current) ? current : Object.values(current);
    if (!Array.isArray(current)) {
      const key = Object.keys(current).find((name) => PROTOTYPE_KEYS.includes(name));
      if (key !== undefined) return `body may not hold the key "${key}"`;
    }
    for (const child of children)
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return undefined;
}
