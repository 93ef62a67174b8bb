import { describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { tempDir } from '../support/test-databases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  engines: { node: string };
};

describe('package scripts', () => {
  it('builds before packing, so a pack or a git install of an unbuilt checkout is not empty', () => {
    expect(manifest.scripts.prepack).toBe('npm run build');
  });

  it('start:demo and the tests build only when the build is missing or older than a source', async () => {
    expect(manifest.scripts['start:demo']).toBe(
      'node scripts/build-if-stale.mjs && node dist/main.js',
    );
    expect(manifest.scripts.pretest).toBe('node scripts/build-if-stale.mjs');
    expect(manifest.scripts['pretest:runtime']).toBe('node scripts/build-if-stale.mjs');
    expect(manifest.scripts['pretest:sqlite']).toBe('node scripts/build-if-stale.mjs');
    const { isStale, STAMP } = (await import(join(ROOT, 'scripts/build-if-stale.mjs'))) as {
      isStale: (root: string) => boolean;
      STAMP: string;
    };
    const root = tempDir('stale-');
    for (const dir of ['src', 'web', 'dist']) mkdirSync(join(root, dir));
    cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
    writeFileSync(join(root, 'src/a.ts'), 'x');
    const past = new Date(Date.now() - 60_000);
    utimesSync(join(root, 'src/a.ts'), past, past);
    for (const source of ['package.json', 'src', 'web']) utimesSync(join(root, source), past, past);
    expect(isStale(root)).toBe(true); // never built
    writeFileSync(join(root, 'dist/main.js'), '');
    writeFileSync(join(root, STAMP), '');
    // Explicit times: the file system's clock is coarse (a tick), so two writes in a row can share
    // an mtime, and the test must not depend on which one the kernel stamps later.
    const built = new Date(Date.now() - 30_000);
    utimesSync(join(root, STAMP), built, built);
    expect(isStale(root)).toBe(false); // built after every source
    writeFileSync(join(root, 'src/a.ts'), 'y'); // a source changed
    const edited = new Date(Date.now() - 10_000);
    utimesSync(join(root, 'src/a.ts'), edited, edited);
    expect(isStale(root)).toBe(true);
    utimesSync(join(root, 'src/a.ts'), built, built); // edited in the build's own tick
    expect(isStale(root)).toBe(true);
    utimesSync(join(root, 'src/a.ts'), past, past);
    utimesSync(join(root, 'src'), past, past);
    expect(isStale(root)).toBe(false);
    rmSync(join(root, 'src/a.ts')); // a source deleted: only its folder's time tells
    utimesSync(join(root, 'src'), edited, edited);
    expect(isStale(root)).toBe(true);
  });

  it('stamps a build with the time it started, so a source saved during it is rebuilt next time', async () => {
    expect(manifest.scripts.build).toMatch(
      /^node scripts\/build-if-stale\.mjs --started && .* && node scripts\/build-if-stale\.mjs --built$/,
    );
    const script = join(ROOT, 'scripts/build-if-stale.mjs');
    const { isStale } = (await import(script)) as { isStale: (root: string) => boolean };
    const root = tempDir('stamp-');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/a.ts'), 'x');
    const past = new Date(Date.now() - 60_000);
    for (const source of ['src/a.ts', 'src']) utimesSync(join(root, source), past, past);
    const step = (name: string) => execFileSync(process.execPath, [script, name], { cwd: root });
    step('--started');
    writeFileSync(join(root, 'dist/main.js'), '');
    step('--built');
    expect(isStale(root)).toBe(false); // nothing changed while it ran
    step('--started');
    const started = new Date(Date.now() - 20_000);
    // Each step's parent is this process, as a build's steps share the shell that runs them.
    utimesSync(join(root, `dist/.build-started-${process.pid}`), started, started);
    const during = new Date(Date.now() - 10_000);
    utimesSync(join(root, 'src/a.ts'), during, during); // saved while the build ran
    step('--built');
    expect(isStale(root)).toBe(true);
  });

  it('lets two builds run at once (npm pack while the tests build): each stamps its own start', async () => {
    const script = join(ROOT, 'scripts/build-if-stale.mjs');
    const root = tempDir('stamp-');
    // Each build as npm runs it: one shell runs its steps, here waiting for a file between them.
    const build = (name: string) =>
      promisify(execFile)(
        'sh',
        [
          '-c',
          `"$0" "$1" --started && for i in $(seq 400); do [ -f ${name} ] && break; sleep 0.05; done && "$0" "$1" --built`,
          process.execPath,
          script,
        ],
        { cwd: root, timeout: 30_000 },
      );
    const first = build('go-first');
    const second = build('go-second');
    const started = () =>
      existsSync(join(root, 'dist'))
        ? readdirSync(join(root, 'dist')).filter((name) => name.startsWith('.build-started-'))
        : [];
    for (let tries = 0; tries < 400 && started().length < 2; tries += 1) await sleep(25);
    expect(started()).toHaveLength(2);
    writeFileSync(join(root, 'go-first'), '');
    await first;
    writeFileSync(join(root, 'go-second'), '');
    await second; // it failed with ENOENT when both builds shared one start file
    expect(started()).toEqual([]);
    expect(existsSync(join(root, 'dist/.build-stamp'))).toBe(true);
  });

  it('runs the README commands on a Node that engines allows (22.12+ or 24), whatever the machine has', () => {
    expect(manifest.engines.node).toBe('^22.12.0 || >=24.0.0');
    const version = execFileSync(
      join(ROOT, 'scripts/with-node.sh'),
      ['node', '-p', 'process.versions.node'],
      { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
    ).trim();
    const [major, minor] = version.split('.').map(Number) as [number, number];
    expect(major >= 24 || (major === 22 && minor >= 12)).toBe(true);
  }, 120_000);
});
