import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCUMENTS = [
  'README.md',
  'CHANGELOG.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count ? `${slug}-${count}` : slug);
  }
  return anchors;
}

/** Every link of a document outside code blocks: `[text](target)`. */
function linksOf(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

describe('the docs', () => {
  it.each(DOCUMENTS)('%s links only to files and anchors that exist', (document) => {
    const markdown = readFileSync(join(ROOT, document), 'utf8');
    const dead: string[] = [];
    for (const link of linksOf(markdown)) {
      if (/^(https?:|mailto:)/.test(link)) continue;
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path ? join(ROOT, dirname(document), path) : join(ROOT, document);
      if (!existsSync(target)) {
        dead.push(`${link} (no ${relative(ROOT, target)})`);
        continue;
      }
      if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor))
        dead.push(`${link} (no heading #${anchor} in ${relative(ROOT, target)})`);
    }
    expect(dead).toEqual([]);
  });

  it.each(DOCUMENTS)(
    '%s shows TypeScript only as example files (which are compiled and run)',
    (document) => {
      const markdown = readFileSync(join(ROOT, document), 'utf8');
      const blocks = [...markdown.matchAll(/```ts\n([^\n]*)/g)].map((m) => m[1]!);
      expect(blocks.filter((first) => !first.startsWith('// examples/'))).toEqual([]);
    },
  );
});
