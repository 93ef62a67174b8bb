/**
 * Marks every type import of an optional peer in the published declarations (`dist/**\/*.d.ts`)
 * with `// @ts-ignore`: an app that does not install that peer (a SQLite-only app has no ioredis,
 * bull, pg or mysql2) type-checks strict without `skipLibCheck`, the peer's types reading as `any`
 * there; with the peer installed, they are its real types. tsc drops such comments from the
 * declarations it emits, so they are added after it. Run by `npm run build`.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const manifest = JSON.parse(readFileSync('package.json', 'utf8'));
const optional = Object.keys(manifest.peerDependenciesMeta ?? {}).filter(
  (name) => manifest.peerDependenciesMeta[name].optional,
);
const escaped = optional.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'));
const importOfPeer = new RegExp(
  `^(import|export)\\b[^;]*from '(${escaped.join('|')})(/[^']*)?';$`,
  'gm',
);
const MARK = '// @ts-ignore -- optional peer dependency: `any` when it is not installed\n';

function declarations(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return declarations(path);
    return path.endsWith('.d.ts') ? [path] : [];
  });
}

let marked = 0;
for (const file of declarations('dist')) {
  const source = readFileSync(file, 'utf8');
  const next = source.replace(importOfPeer, (line, _kind, _peer, _sub, offset) => {
    if (source.slice(Math.max(0, offset - MARK.length), offset) === MARK) return line;
    marked += 1;
    // On one line: `@ts-ignore` covers the next line, where tsc reports the missing module.
    return MARK + line.replace(/\s*\n\s*/g, ' ');
  });
  if (next !== source) writeFileSync(file, next);
}
process.stdout.write(`mark-optional-peer-types: ${marked} import(s) of optional peers marked\n`);
