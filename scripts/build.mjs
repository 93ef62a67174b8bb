/**
 * `npm run build`: compiles the package (`tsc`), marks its optional peers' types, bundles the web
 * page, then stamps the build with the time it started (`build-if-stale.mjs`). One Node process
 * runs the steps and keeps that time, so the stamp is this build's whatever shell npm uses and
 * however many builds run at once (`npm pack` while the tests build).
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { writeStamp } from './build-if-stale.mjs';

const started = Date.now();
const node = (...args) => execFileSync(process.execPath, args, { stdio: 'inherit' });
node(createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json');
node('scripts/mark-optional-peer-types.mjs');
node('scripts/build-web.mjs');
writeStamp('.', started);
