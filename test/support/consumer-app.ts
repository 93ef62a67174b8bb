import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './test-databases.js';

/** The repository's root directory. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The version of a package installed here (what the npm cache holds, so installs rarely fetch). */
export function installed(name: string): string {
  const manifest = JSON.parse(
    readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'),
  ) as { version: string };
  return `${name}@${manifest.version}`;
}

/** Runs a command to completion and resolves its output (throws with stderr on failure). */
export function run(command: string, args: string[], cwd: string): string {
  return execFileSync(command, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * A scratch app that installs the packed tarball as a user would, with only the SQLite peers
 * (typeorm, better-sqlite3): no ioredis, bull, pg or mysql2. Installed from the npm cache, the
 * registry only for what it lacks (install scripts off: better-sqlite3 13 ships its native parts
 * built for each platform, on Node-API). With `typescript7`, the current TypeScript 7 (the native compiler) beside
 * the repository's 6, as `typescript7` (only the app that builds with both needs it: its install
 * is some twenty platform packages' metadata and a native binary).
 */
export function scratchApp(
  type: 'module' | 'commonjs',
  tarball: string,
  extra: string[] = [],
  { typescript7 = false }: { typescript7?: boolean } = {},
): string {
  const dir = tempDir(`consumer-${type}-`);
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'consumer', private: true, type }),
  );
  run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--ignore-scripts',
      tarball,
      ...[
        '@nestjs/common',
        '@nestjs/core',
        'reflect-metadata',
        'rxjs',
        'typeorm',
        'better-sqlite3',
        'typescript',
        '@types/node',
        ...extra,
      ].map(installed),
      ...(typescript7 ? ['typescript7@npm:typescript@^7.0.2'] : []),
    ],
    dir,
  );
  return dir;
}

/** Runs a command without blocking the event loop (the test's own servers must keep answering). */
export function runAsync(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** A consumer app's tsconfig: strict, NodeNext, every declaration file checked. */
export const TSCONFIG = {
  compilerOptions: {
    target: 'ES2023',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
    // Strict on every .d.ts, ours included: types of peers not installed must not break the build.
    skipLibCheck: false,
  },
  include: ['src'],
};
