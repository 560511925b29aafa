/**
 * Issue 13.20: `npm run demo` rebuilt TypeScript on every run. It now builds only when a source changed
 * (scripts/build-if-stale.mjs); the script's staleness rule is checked on a scratch tree.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without type declarations
import { staleReason, writeStamp } from '../../../scripts/build-if-stale.mjs';
import { repoRoot } from './support.js';

const root = mkdtempSync(path.join(tmpdir(), 'floe-build-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const touch = (rel: string, secondsAgo: number) => {
  const p = path.join(root, rel);
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(p, t, t);
};

describe('build only when sources changed', () => {
  it('is stale without a stamp, fresh after one, stale again when a source is edited, added or removed', () => {
    mkdirSync(path.join(root, 'src/shells/cli'), { recursive: true });
    writeFileSync(path.join(root, 'tsconfig.json'), '{}');
    writeFileSync(path.join(root, 'package.json'), '{}');
    writeFileSync(path.join(root, 'src/shells/cli/main.ts'), 'export {};');
    for (const f of ['tsconfig.json', 'package.json', 'src/shells/cli/main.ts']) touch(f, 60);
    expect(staleReason(root)).toBe('no previous build');
    writeStamp(root);
    expect(staleReason(root)).toBeUndefined();
    writeFileSync(path.join(root, 'src/shells/cli/main.ts'), 'export const x = 1;');
    touch('src/shells/cli/main.ts', -5);
    expect(staleReason(root)).toBe(`${path.join('src', 'shells', 'cli', 'main.ts')} changed`);
    writeStamp(root);
    touch('src/shells/cli/main.ts', 60);
    writeFileSync(path.join(root, 'src/shells/cli/extra.ts'), 'export {};');
    touch('src/shells/cli/extra.ts', 60);
    expect(staleReason(root)).toBe('source files were added or removed');
    writeStamp(root);
    unlinkSync(path.join(root, 'src/shells/cli/extra.ts'));
    expect(staleReason(root)).toBe('source files were added or removed');
  });
  it('npm run demo uses it instead of an unconditional build', () => {
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.demo).toMatch(
      /^node scripts\/build-if-stale\.mjs && node dist\/src\/shells\/cli\/main\.js demo/,
    );
    expect(pkg.scripts.demo).not.toMatch(/npm run build/);
  });
});
