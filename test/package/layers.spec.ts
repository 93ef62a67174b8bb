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
};

/** The unit a source file belongs to: `common`, a module's folder, `testing`, or the app. */
function unitOf(file: string): string {
  const path = relative(SRC, file);
  if (path.startsWith('common/')) return 'common';
  if (path.startsWith('modules/')) return path.split('/')[1]!;
  if (path.startsWith('testing/')) return 'testing';
  return 'app';
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
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
});
