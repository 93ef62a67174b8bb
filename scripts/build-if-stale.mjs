/**
 * Builds only when the build is missing or older than its sources (`src`, `web`, the build's
 * scripts, `package.json` and its lock, the tsconfigs): `npm run start:demo` starts at once, and
 * `npm test` tests at once, when nothing changed since the last build.
 * Usage: node scripts/build-if-stale.mjs (`--started` / `--built`: the build's own first and last
 * steps)
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The build's stamp, written by `npm run build` when it succeeds, with the time the build started
 * (`--started` writes it aside, `--built` moves it in place): a source saved while the build ran is
 * newer than the stamp, so the next check builds again. Each build's start is its own file, named
 * by the shell that runs the build's steps, so two builds at once (`npm pack` while `npm test`
 * builds) do not move each other's: the last to finish stamps its own start.
 */
export const STAMP = 'dist/.build-stamp';
const STARTED = `dist/.build-started-${process.ppid}`;
/** A build's start left behind longer than this (a build that failed) is removed by the next. */
const LEFT_BEHIND_MS = 24 * 60 * 60 * 1000;
const SOURCES = [
  'src',
  'web',
  'scripts/build-web.mjs',
  'scripts/mark-optional-peer-types.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.web.json',
];

/**
 * The newest modification time (ms) of a file, or of a folder and anything under it (a folder's own
 * time changes when an entry is added, renamed or deleted); 0 if absent.
 */
export function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/**
 * True when `dist` lacks a build, or a source changed after it. A source stamped in the same clock
 * tick as the build counts as changed: one needless build beats running a stale one.
 */
export function isStale(root = '.') {
  const stamp = join(root, STAMP);
  if (!existsSync(stamp) || !existsSync(join(root, 'dist/main.js'))) return true;
  const built = statSync(stamp).mtimeMs;
  return SOURCES.some((source) => newestMtime(join(root, source)) >= built);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const step = process.argv[2];
  if (step === '--started') {
    mkdirSync('dist', { recursive: true });
    for (const entry of readdirSync('dist').filter((name) => name.startsWith('.build-started'))) {
      const path = join('dist', entry);
      if (Date.now() - statSync(path).mtimeMs > LEFT_BEHIND_MS) rmSync(path, { force: true });
    }
    writeFileSync(STARTED, new Date().toISOString());
  } else if (step === '--built') {
    renameSync(STARTED, STAMP);
  } else if (isStale()) {
    console.log(
      existsSync(STAMP)
        ? 'build-if-stale: sources changed since the last build; building'
        : 'build-if-stale: no build yet; building',
    );
    execFileSync('npm', ['run', 'build'], { stdio: 'inherit' });
  } else {
    console.log('build-if-stale: the build is up to date');
  }
}
