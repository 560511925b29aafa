import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const fixtures = path.resolve(repoRoot, '../shared/fixtures');

/** A throw-away copy of a fixture table (tests may break it). */
export function copyFixture(rel: string): { dir: string; cleanup: () => void } {
  const base = mkdtempSync(path.join(tmpdir(), 'floe-ice-'));
  const dir = path.join(base, path.basename(rel));
  cpSync(path.join(fixtures, rel), dir, { recursive: true });
  return { dir, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

export async function caught(
  p: Promise<unknown>,
): Promise<Error & { kind?: string; context?: Record<string, unknown> }> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a failure');
}
