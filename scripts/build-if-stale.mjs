/**
 * Builds only when the build is missing or older than its sources (`src`, `web`, the build's
 * scripts, `package.json` and its lock, the tsconfigs): `npm run start:demo` starts at once, and
 * `npm test` tests at once, when nothing changed since the last build.
 * Usage: node scripts/build-if-stale.mjs
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The build's stamp, written by `npm run build` (`scripts/build.mjs`) when it succeeds, dated the
 * time the build started: a source saved while the build ran is newer than the stamp, so the next
 * check builds again.
 */
export const STAMP = 'dist/.build-stamp';
const SOURCES = [
  'src',
  'web',
  'scripts/build.mjs',
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

/**
 * Stamps the build under `root` as one that started at `startedMs`: written aside under a name of
 * its own, dated, then moved in place, so builds that finish at once each leave a whole stamp (the
 * last one's stands).
 */
export function writeStamp(root, startedMs) {
  mkdirSync(join(root, 'dist'), { recursive: true });
  const aside = join(root, `${STAMP}-${randomUUID()}`);
  writeFileSync(aside, new Date(startedMs).toISOString());
  const started = new Date(startedMs);
  utimesSync(aside, started, started);
  renameSync(aside, join(root, STAMP));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  if (isStale()) {
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
