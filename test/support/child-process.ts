import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const TSX_LOADER = require.resolve('tsx');

/** A TypeScript file running in its own Node process (through tsx). */
export interface TypeScriptChild {
  readonly process: ChildProcessWithoutNullStreams;
  /** Resolves when the child prints a line equal to `line`. */
  waitForLine(line: string): Promise<void>;
  /** Resolves with everything the child printed once it exits with 0; rejects otherwise. */
  readonly exited: Promise<string>;
}

/** Starts a TypeScript file in a new Node process. */
export function startTypeScriptChild(file: string, args: string[]): TypeScriptChild {
  const child = spawn(process.execPath, ['--import', TSX_LOADER, file, ...args], {
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let stdout = '';
  let stderr = '';
  const lineWaiters: Array<{ line: string; resolve: () => void }> = [];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    const lines = stdout.split('\n');
    for (const waiter of lineWaiters.splice(0)) {
      if (lines.includes(waiter.line)) waiter.resolve();
      else lineWaiters.push(waiter);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  // The child's stdin stays open in this process after the child is gone unless closed.
  child.once('exit', () => child.stdin.destroy());
  const exited = new Promise<string>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code, signal) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${file} exited with ${code ?? signal}: ${stderr}`)),
    );
  });
  return {
    process: child,
    exited,
    waitForLine: (line) =>
      new Promise<void>((resolve, reject) => {
        if (stdout.split('\n').includes(line)) return resolve();
        lineWaiters.push({ line, resolve });
        exited.then(() => reject(new Error(`${file} exited before printing "${line}"`)), reject);
      }),
  };
}
