/**
 * floe compacts the Java-written deletion-vector fixture pk_09 (levels 0/3/4/5, DVs on higher levels):
 * the rows its README lists survive (the two rows deleted through DVs stay deleted), the rewritten files'
 * DVs leave the index, each touched bucket's DV index entry is replaced by a new index file in the same
 * COMPACT snapshot, and nothing the base snapshot referenced is deleted.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable, scanPaimon } from '../../../connectors/paimon/index.js';
import { readDeletionVector } from '../../../connectors/paimon/deletion-vector.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { cleanup, copyFixture, fixtures } from '../paimon-compact/helpers.js';
import { readFileSync } from 'node:fs';

afterEach(cleanup);

/** From the fixture's README (MANIFEST.md): 9 rows, Tony and Lily deleted via DV. */
const EXPECTED = [
  ['TwoRoads', 11.0],
  ['Alice', 21.1],
  ['Bob', 12.1],
  ['Emily', 13.1],
  ['Alex', 16.1],
  ['David', 17.1],
  ['Lucy', 14.1],
  ['Paul', 18.1],
  ['Whether', 19.1],
]
  .map(([n, v]) => `${n}:${v}`)
  .sort();

async function namesAndF3(t: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(t)) {
    const name = String(r.f0);
    out.push(`${name.startsWith('Two roads') ? 'TwoRoads' : name.startsWith('Whether') ? 'Whether' : name}:${r.f3}`);
  }
  return out.sort();
}

const allFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath ?? (d as unknown as { path: string }).path, d.name));

describe('compaction of a deletion-vector table (pk_09)', () => {
  it('full compaction keeps the README rows and replaces the touched buckets’ DV index files', async () => {
    expect(existsSync(path.join(fixtures, 'pk_09')), `fixture missing under ${fixtures}`).toBe(true);
    const t = copyFixture('pk_09');
    expect(await namesAndF3(t)).toEqual(EXPECTED);
    const before = await openPaimonTable(t);
    expect(before.files.some((f) => f.dv)).toBe(true);
    const filesBefore = allFiles(t);
    const report = await compactPaimon(t, { full: true });
    expect(report.snapshotId).toBe(String(before.snapshot!.id + 1n));
    const after = await openPaimonTable(t);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    expect(after.snapshot!.indexManifest).toBeDefined();
    expect(after.snapshot!.indexManifest).not.toBe(before.snapshot!.indexManifest);
    expect(await namesAndF3(t)).toEqual(EXPECTED);
    // every live file is at the max level; no DV points at a file that is gone
    for (const f of after.files) expect(f.meta.level).toBe(5);
    const live = new Set(after.files.map((f) => f.meta.fileName));
    for (const e of after.indexEntries)
      for (const r of e.dvRanges ?? []) expect(live.has(r.dataFileName), r.dataFileName).toBe(true);
    // a DV that is still there reads back, and its cardinality matches
    for (const f of after.files.filter((x) => x.dv)) {
      const bytes = new Uint8Array(readFileSync(f.dv!.indexFile));
      expect(readDeletionVector(bytes, f.dv!.offset, f.dv!.length, f.dv!.indexFile).length).toBe(
        Number(f.dv!.cardinality),
      );
    }
    // fault safety: every file of the base snapshot is still on disk
    const now = new Set(allFiles(t));
    for (const f of filesBefore) expect(now.has(f), f).toBe(true);
    // the buckets floe touched have exactly one DV index entry each, written by floe
    const touched = new Set(report.buckets.filter((b) => b.compact).map((b) => b.bucket));
    for (const e of after.indexEntries.filter((x) => touched.has(x.bucket) && x.indexType === 'DELETION_VECTORS'))
      expect(existsSync(path.join(t, 'index', e.fileName))).toBe(true);
    // a second full compaction finds nothing left to rewrite
    const again = await compactPaimon(t, { full: true });
    expect(again.snapshotId).toBeUndefined();
  });
});
