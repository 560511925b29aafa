/**
 * Java-written fixture tables compacted by floe still read the rows their origin README lists, the new
 * snapshot is a COMPACT one, and tables floe must not compact are refused with the reason.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable, scanPaimon } from '../../../connectors/paimon/index.js';
import { compactPaimon, renderPaimonPlan } from '../../../src/orchestration/compact-paimon.js';
import { isFloeError } from '../../../util/errors.js';
import { cleanup, copyFixture, rowsOf } from './helpers.js';

afterEach(cleanup);

/** From the fixture's README (MANIFEST.md): name → f3 of the 11 live rows. */
const MOR_EXPECTED = [
  ['TwoRoads', 11.0],
  ['Alice', 19.1],
  ['Bob', 12.1],
  ['Emily', 13.1],
  ['David', 17.1],
  ['Lucy', 14.1],
  ['Paul', 18.1],
  ['Skye', 21.0],
  ['Marco', 21.1],
  ['Skye2', 31.0],
  ['Marco2', 31.1],
]
  .map(([n, v]) => `${n}:${v}`)
  .sort();

async function namesAndF3(t: string): Promise<string[]> {
  const out: string[] = [];
  // the README abbreviates the long first row as "TwoRoads"
  for await (const r of scanPaimon(t)) out.push(`${String(r.f0).startsWith('Two roads') ? 'TwoRoads' : r.f0}:${r.f3}`);
  return out.sort();
}

describe('floe compaction of fixture tables', () => {
  it('full compaction of a PK table with L0 and L5 files keeps the README rows', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    expect(await namesAndF3(t)).toEqual(MOR_EXPECTED);
    const before = await openPaimonTable(t);
    const report = await compactPaimon(t, { full: true });
    expect(report.snapshotId).toBe(String(before.snapshot!.id + 1n));
    const after = await openPaimonTable(t);
    expect(after.snapshot!.commitKind).toBe('COMPACT');
    // Full compaction leaves one run per bucket, all at the max level (5 with default options).
    for (const f of after.files) expect(f.meta.level).toBe(5);
    expect(await namesAndF3(t)).toEqual(MOR_EXPECTED);
    // The stored record count follows the files: total = previous + delta.
    const rows = after.files.reduce((n, f) => n + f.meta.rowCount, 0n);
    expect(after.snapshot!.totalRecordCount).toBe(rows);
    expect(after.snapshot!.deltaRecordCount).toBe(rows - before.files.reduce((n, f) => n + f.meta.rowCount, 0n));
    expect(renderPaimonPlan(report, true)).toContain('committed snapshot');
  });

  it('a second full compaction has nothing to do', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    await compactPaimon(t, { full: true });
    const again = await compactPaimon(t, { full: true });
    expect(again.snapshotId).toBeUndefined();
    expect(again.buckets.every((b) => !b.compact)).toBe(true);
  });

  it('dry run writes nothing and reports the picker trail', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const id = (await openPaimonTable(t)).snapshot!.id;
    const report = await compactPaimon(t, { full: true, dryRun: true });
    expect((await openPaimonTable(t)).snapshot!.id).toBe(id);
    expect(report.buckets.length).toBeGreaterThan(0);
    expect(renderPaimonPlan(report, true)).toMatch(/dry run/);
  });

  it('append table with schema evolution: full compaction rewrites into the current schema', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const before = await rowsOf(t);
    expect(before).toHaveLength(10);
    // Each of the two partitions holds 2 files: the picker (min file num 5) leaves them, Java's automatic
    // full trigger wants 3, but an explicit --full compacts them into one file per partition (issue 13).
    expect((await compactPaimon(t, {})).snapshotId).toBeUndefined();
    const full = await compactPaimon(copyFixture('append_table_with_alter_table'), { full: true });
    expect(full.snapshotId).toBeDefined();
    expect(full.after?.files).toBe(2);
    const forced = await compactPaimon(t, { options: { 'compaction.min.file-num': '2' } });
    expect(forced.snapshotId).toBeDefined();
    const after = await openPaimonTable(t);
    const current = after.schema.id;
    expect(after.files.filter((f) => f.meta.fileSource === 1).every((f) => f.meta.schemaId === current)).toBe(true);
    expect(after.files).toHaveLength(2);
    expect(await rowsOf(t)).toEqual(before);
  });

  it('refuses deletion-vector layouts it does not write (bitmap64), naming the option', async () => {
    const t = copyFixture('pk_09');
    const file = path.join(t, 'schema/schema-0');
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('"deletion-vectors.enabled" : "true"');
    writeFileSync(
      file,
      text.replace(
        '"deletion-vectors.enabled" : "true"',
        '"deletion-vectors.enabled" : "true", "deletion-vectors.bitmap64" : "true"',
      ),
    );
    await expect(compactPaimon(t, { full: true })).rejects.toSatisfy(
      (e: unknown) => isFloeError(e, 'Unsupported') && /deletion-vectors.bitmap64/.test((e as Error).message),
    );
  });

  it('refuses ORC manifests', async () => {
    const t = copyFixture('append_09');
    await expect(compactPaimon(t, { full: true })).rejects.toSatisfy((e: unknown) => isFloeError(e, 'Unsupported'));
  });

  it('changelog-producer=lookup and full-compaction: the compaction writes changelog files, rows unchanged', async () => {
    for (const producer of ['lookup', 'full-compaction']) {
      const t = copyFixture('pk_table_scan_and_read_mor');
      const file = path.join(t, 'schema/schema-0');
      writeFileSync(
        file,
        readFileSync(file, 'utf8').replace('"bucket" : "2",', `"bucket" : "2", "changelog-producer" : "${producer}",`),
      );
      const rows = await namesAndF3(t);
      const report = await compactPaimon(t, { full: true });
      expect(report.snapshotId).toBeDefined();
      const after = await openPaimonTable(t);
      expect(after.snapshot!.changelogManifestList, producer).toBeDefined();
      expect(after.snapshot!.changelogRecordCount! > 0n, producer).toBe(true);
      expect(await namesAndF3(t)).toEqual(rows);
    }
  });

  it('refuses changelog-producer=full-compaction with deletion vectors, naming the option', async () => {
    const t = copyFixture('pk_09');
    const file = path.join(t, 'schema/schema-0');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        '"deletion-vectors.enabled" : "true"',
        '"deletion-vectors.enabled" : "true", "changelog-producer" : "full-compaction"',
      ),
    );
    await expect(compactPaimon(t, { full: true })).rejects.toSatisfy(
      (e: unknown) =>
        isFloeError(e, 'Unsupported') &&
        (e as Error).message.includes('changelog-producer=full-compaction') &&
        (e as Error).message.includes(t),
    );
  });
});
