/** Temp copies of the shared Paimon fixtures and small row helpers for the compaction tests. */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanPaimon } from '../../../connectors/paimon/index.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const fixtures = path.resolve(repoRoot, '../shared/fixtures/paimon-cpp');
export const hasFixtures = existsSync(fixtures);

const temps: string[] = [];

export function copyFixture(name: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-compact-'));
  temps.push(dir);
  const t = path.join(dir, name);
  cpSync(path.join(fixtures, name), t, { recursive: true });
  return t;
}

export function cleanup(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

export function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-compact-'));
  temps.push(dir);
  return dir;
}

const show = (v: unknown) =>
  typeof v === 'bigint' ? v.toString() : v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v;

/** Rows as sorted JSON lines (bigint and bytes rendered as text). */
export async function rowsOf(table: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(table)) out.push(JSON.stringify(r, (_k, v) => show(v)));
  return out.sort();
}
