import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, TSCONFIG, run, scratchApp } from '../support/consumer-app.js';
import { tempDir } from '../support/test-databases.js';

/** What the framework adapters' consumer needs beside the SQLite peers. */
const FRAMEWORKS = [
  '@langchain/core',
  '@langchain/langgraph',
  '@langchain/langgraph-checkpoint',
  '@openai/agents',
  '@modelcontextprotocol/sdk',
  'zod',
];

describe('the framework adapters from the packed package, in a fresh app', () => {
  let packDir: string;
  let dir: string;

  beforeAll(() => {
    packDir = tempDir('adapters-pack-');
    const output = run('npm', ['pack', '--pack-destination', packDir, '--ignore-scripts'], ROOT);
    dir = scratchApp('module', join(packDir, output.trim().split('\n').at(-1)!), FRAMEWORKS);
  }, 180_000);
  afterAll(() => rmSync(packDir, { recursive: true, force: true }));

  it('type-checks strict without skipLibCheck and runs each adapter from ESM TypeScript', () => {
    mkdirSync(join(dir, 'src'));
    cpSync(join(ROOT, 'test/consumer/apps/framework-adapters.main.ts'), join(dir, 'src/main.ts'));
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify(TSCONFIG));
    run(process.execPath, [join(dir, 'node_modules/typescript/bin/tsc'), '-p', dir], dir);
    const output = run(process.execPath, ['dist/main.js', join(dir, 'esm.sqlite')], dir);
    expect(JSON.parse(output)).toEqual({
      langchain: ['hi', 'hello'],
      langgraph: 4,
      store: { fact: 'likes tea' },
      openaiAgents: 1,
      mcp: true,
    });
  }, 180_000);

  it('loads each adapter with require() and runs it from CommonJS', () => {
    cpSync(join(ROOT, 'test/consumer/apps/framework-adapters.main.cjs'), join(dir, 'main.cjs'));
    const output = run(process.execPath, ['main.cjs', join(dir, 'cjs.sqlite')], dir);
    expect(JSON.parse(output)).toEqual({
      langchain: ['hi', 'hello'],
      langgraph: 4,
      openaiAgents: 1,
      mcp: true,
    });
  }, 120_000);
});
