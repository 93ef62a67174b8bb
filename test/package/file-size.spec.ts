import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));
/** The most lines a source file may have. */
const MAX_LINES = 300;
/** The package's entry point: its export list, grouped by module, is long by nature. */
const EXEMPT = new Set(['index.ts']);

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('source files', () => {
  it(`are at most ${MAX_LINES} lines each (small and single-purpose)`, () => {
    const long = sources(SRC)
      .map((file) => ({
        file: relative(SRC, file),
        lines: readFileSync(file, 'utf8').split('\n').length - 1,
      }))
      .filter(({ file, lines }) => lines > MAX_LINES && !EXEMPT.has(file));
    expect(long).toEqual([]);
  });
});
