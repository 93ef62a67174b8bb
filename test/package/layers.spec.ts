import { describe, expect, it } from '@jest/globals';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

/**
 * The package's layers, lowest first. A file may import from its own unit or from a lower layer;
 * never from a higher one, nor sideways between two units of one layer (a type two units share lives
 * in the lower layer).
 */
const LAYERS: Record<string, number> = {
  common: 0,
  connections: 1,
  sweeper: 2,
  'chat-memory': 3,
  longterm: 3,
  'working-memory': 3,
  llm: 4,
  'memory-provider': 5,
  formation: 5,
  kernel: 5,
  agent: 6,
  'ai-sdk': 6,
  langchain: 6,
  langgraph: 6,
  'openai-agents': 6,
  http: 7,
  testing: 7,
  mcp: 8,
  app: 9,
  'app-root': 10,
};

/** The unit a source file belongs to: `common`, a module's folder, `testing`, or the app. */
function unitOf(file: string): string {
  const path = relative(SRC, file);
  if (path.startsWith('common/')) return 'common';
  if (path.startsWith('modules/')) return path.split('/')[1]!;
  if (path.startsWith('testing/')) return 'testing';
  // The example app: its root module and entry points (src/*.ts) above the rest of it.
  return path.includes('/') ? 'app' : 'app-root';
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

/** The source files each file imports (relative imports and re-exports, types included). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sources(SRC)) {
    const targets = [...readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)].map(
      ([, specifier]) => normalize(join(dirname(file), specifier!)).replace(/\.js$/, '.ts'),
    );
    graph.set(file, targets);
  }
  return graph;
}

/**
 * Every import circle between files (strongly connected groups of more than one file, Tarjan's
 * algorithm), each as its files relative to src/, sorted.
 */
function importCircles(): string[][] {
  const graph = importGraph();
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let next = 0;
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next);
    next += 1;
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!graph.has(target)) continue;
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(relative(SRC, member));
    } while (member !== file);
    if (group.length > 1) circles.push(group.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}

/** Every relative import that runs up or sideways, as `from → to (file)`. */
function violations(): string[] {
  const found: string[] = [];
  for (const file of sources(SRC)) {
    const from = unitOf(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from '(\.[^']+)'/g)) {
      const to = unitOf(normalize(join(dirname(file), specifier!)));
      if (from === to || file === join(SRC, 'index.ts')) continue;
      if (!(from in LAYERS) || !(to in LAYERS))
        found.push(`${from} → ${to} (${relative(SRC, file)}): unit without a layer`);
      else if (LAYERS[to]! >= LAYERS[from]!) found.push(`${from} → ${to} (${relative(SRC, file)})`);
    }
  }
  return found;
}

describe('layers', () => {
  it('import only downward: common → connections → sweeper → stores → llm → policy, kernel → agent → app', () => {
    expect(violations()).toEqual([]);
  });

  it('has no import circle between files, type imports included', () => {
    expect(importCircles()).toEqual([]);
  });
});
