import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The files `npm pack` would publish (`npm test` builds `dist` first). */
function packedFiles(): Set<string> {
  const output = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  const [pack] = JSON.parse(output) as Array<{ files: Array<{ path: string }> }>;
  return new Set(pack!.files.map((file) => file.path));
}

describe('the published package', () => {
  const files = packedFiles();

  it('holds every file its entry points name', () => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      exports: Record<string, { types: string; import: string }>;
    };
    for (const entry of Object.values(manifest.exports))
      for (const target of [entry.types, entry.import])
        expect(files.has(normalize(target))).toBe(true);
  });

  it('holds every module its published modules import', () => {
    const missing: string[] = [];
    for (const file of files) {
      if (!/\.(js|d\.ts)$/.test(file)) continue;
      const source = readFileSync(join(ROOT, file), 'utf8');
      for (const [, specifier] of source.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = normalize(join(dirname(file), specifier!));
        const candidates = file.endsWith('.d.ts')
          ? [target.replace(/\.js$/, '.d.ts'), target]
          : [target];
        if (!candidates.some((candidate) => files.has(candidate)))
          missing.push(`${file} → ${specifier}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('holds what its README and guides link to, so the links work in node_modules', () => {
    const broken: string[] = [];
    const pages = [...files].filter((file) =>
      /^(README|CHANGELOG)\.md$|^docs\/[^/]+\.md$/.test(file),
    );
    expect(pages).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', 'docs/agent.md']));
    for (const page of pages) {
      const text = readFileSync(join(ROOT, page), 'utf8');
      for (const [, link] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(link!)) continue;
        const target = normalize(join(dirname(page), link!));
        // Links into the repository's own folders (the example app, the tests) are for its readers.
        if (/^(src|test|bench|examples|scripts|web)\//.test(target) || target.startsWith('..'))
          continue;
        if (!files.has(target)) broken.push(`${page} → ${link}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('publishes the library only: no example app, tests or specs', () => {
    const unwanted = [...files].filter((file) =>
      /^dist\/(main|app\.module|app\/|config\/)|\.spec\.|^test\//.test(file),
    );
    expect(unwanted).toEqual([]);
  });
});
