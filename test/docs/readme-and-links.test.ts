/**
 * The README stays a page a newcomer reads (≤ 300 lines, the two commands first), and every relative link in
 * README.md and docs/ reaches a file — and, with a #fragment, a heading of that file (GitHub's anchors).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PAGES = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f)),
];

/**
 * Pages other branches add (their owners write them; the README and these pages link them already). A link to
 * one of them is checked as soon as it exists.
 */
const ADDED_ELSEWHERE = new Set([
  'docs/s3-stores.md',
  'docs/install.md',
  'docs/live-writers.md',
  'docs/operations.md',
  'docs/catalogs',
  'docs/catalogs/paimon.md',
]);

/** GitHub's heading anchor: lower case, punctuation other than - and _ dropped, spaces to dashes. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  const anchors = new Set<string>();
  for (const m of text.matchAll(/^#{1,6} (.+)$/gm)) anchors.add(anchorOf(m[1]!));
  for (const m of text.matchAll(/<a id="([^"]+)">/g)) anchors.add(m[1]!);
  return anchors;
}

function linksOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
}

describe('README.md', () => {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');

  it('is at most 300 lines', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
  });

  it('starts with the two commands: the demo and the whole suite', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const commands = firstBlock
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => l.split('#')[0]!.trim());
    expect(commands).toEqual(['npm install && npm run demo', 'npm install && npm test']);
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.demo).toBeDefined();
    expect(pkg.scripts.test).toBe('bash scripts/test-all.sh');
  });
});

describe('links in README.md and docs/', () => {
  it.each(PAGES)('%s: every relative link reaches a file and a heading', (page) => {
    const broken: string[] = [];
    for (const link of linksOf(page)) {
      const [target, fragment] = link.split('#') as [string, string | undefined];
      const file = target === '' ? path.join(ROOT, page) : path.resolve(path.dirname(path.join(ROOT, page)), target);
      const rel = path.relative(ROOT, file).replace(/\/$/, '');
      if (!existsSync(file)) {
        if (!ADDED_ELSEWHERE.has(rel)) broken.push(`${link} (no file ${rel})`);
        continue;
      }
      if (fragment !== undefined && file.endsWith('.md') && !anchorsOf(file).has(fragment))
        broken.push(`${link} (no heading #${fragment} in ${rel})`);
    }
    expect(broken).toEqual([]);
  });
});
