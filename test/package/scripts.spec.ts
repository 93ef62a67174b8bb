import { describe, expect, it } from '@jest/globals';
import { execFile, execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
    // One Node process runs the steps and keeps the start: the stamp is the build's own, whatever
    // shell npm uses (bash runs a chain's last command in its own process, so a shell's id is not
    // the build's) and however many builds run at once.
    expect(manifest.scripts.build).toBe('node scripts/build.mjs');
    const { isStale, writeStamp } = (await import(join(ROOT, 'scripts/build-if-stale.mjs'))) as {
      isStale: (root: string) => boolean;
      writeStamp: (root: string, startedMs: number) => void;
    };
    const root = tempDir('stamp-');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src/a.ts'), 'x');
    const past = new Date(Date.now() - 60_000);
    for (const source of ['src/a.ts', 'src']) utimesSync(join(root, source), past, past);
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist/main.js'), '');
    writeStamp(root, Date.now() - 30_000);
    expect(isStale(root)).toBe(false); // nothing changed while it ran
    const during = new Date(Date.now() - 10_000);
    utimesSync(join(root, 'src/a.ts'), during, during); // saved while the next build ran
    writeStamp(root, Date.now() - 20_000);
    expect(isStale(root)).toBe(true);
  });

  it('lets builds that finish at once each leave a whole stamp (npm pack while the tests build)', async () => {
    const script = pathToFileURL(join(ROOT, 'scripts/build-if-stale.mjs')).href;
    const root = tempDir('stamp-');
    const stamp = (startedMs: number) =>
      promisify(execFile)(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `(await import('${script}')).writeStamp(process.argv[1], ${startedMs})`,
          root,
        ],
        { timeout: 30_000 },
      );
    await Promise.all(Array.from({ length: 8 }, (_, i) => stamp(Date.now() - i * 1_000)));
    expect(readdirSync(join(root, 'dist'))).toEqual(['.build-stamp']);
    expect(Number.isNaN(Date.parse(readFileSync(join(root, 'dist/.build-stamp'), 'utf8')))).toBe(
      false,
    );
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
