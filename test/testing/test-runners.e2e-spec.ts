import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** Runs a command in the repository (the built package resolves by its own name) and its output. */
async function output(command: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const { stdout, stderr } = await run(command, args, {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1', ...env },
    maxBuffer: 16 * 1024 * 1024,
  });
  return `${stdout}\n${stderr}`;
}

/**
 * The README's examples of the conformance suite under the other two runners users have (Jest
 * runs `examples/custom-store.conformance.spec.ts` itself), against the built package.
 */
describe('the conformance suite under node:test and Vitest (built package)', () => {
  it('passes every test under both, and both run the same tests', async () => {
    const nodeTest = await output(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-reporter=tap',
        'examples/testing/node-test.conformance.test.ts',
      ],
      { TSX_TSCONFIG_PATH: 'examples/testing/tsconfig.json' },
    );
    const passed = Number(/^# pass (\d+)$/m.exec(nodeTest)?.[1]);
    expect(/^# fail (\d+)$/m.exec(nodeTest)?.[1]).toBe('0');
    expect(passed).toBeGreaterThan(20);

    const vitest = await output('npx', [
      'vitest',
      'run',
      '--root',
      '.',
      'examples/testing/vitest.conformance.test.ts',
    ]);
    expect(vitest).toMatch(/Test Files\s+1 passed/);
    expect(Number(/Tests\s+(\d+) passed/.exec(vitest)?.[1])).toBe(passed);
  }, 120_000);
});
