/**
 * `compactPaimon(…, { sort })` end to end on a real bucket-unaware append table written by paimon-cpp
 * (`append_table_with_alter_table`: two partitions' worth of files across two schemas). After floe's sort
 * compaction: the same multiset of rows; every selected partition overwritten in one OVERWRITE snapshot by
 * level-0 files of the current schema whose rows — read back from the files — follow the order within and
 * across files; the files' min/max stats are the rows' real bounds; `--where` and dry runs leave the other
 * partitions and the table untouched. The fixtures are required: without them the suite fails.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPaimonTable, toTableModel } from '../../../connectors/paimon/table.js';
import { readFileRecords } from '../../../connectors/paimon/compact-merge.js';
import { compactPaimon, renderPaimonPlan } from '../../../src/orchestration/compact-paimon.js';
import { cleanup, copyFixture, fixtures, hasFixtures, rowsOf } from '../paimon-compact/helpers.js';

afterAll(cleanup);

const APPEND = 'append_table_with_alter_table';

function listFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}

function snapshotJson(loc: string, id: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path.join(loc, 'snapshot', `snapshot-${id}`), 'utf8')) as Record<string, unknown>;
}

describe('Paimon sort compaction on a paimon-cpp append table', () => {
  it('has its fixtures', () => {
    expect(hasFixtures, `shared Paimon fixtures missing at ${fixtures}`).toBe(true);
  });

  it('order by c, k: rows unchanged, partitions overwritten with files ordered by (c, k), true stats', async () => {
    const loc = copyFixture(APPEND);
    const before = await rowsOf(loc);
    const t0 = await openPaimonTable(loc);
    expect(new Set(t0.files.map((f) => f.meta.schemaId)).size).toBe(2); // files of both schemas
    // a tiny target (2 rows' worth of input bytes) so each partition gets several files
    const perRow = t0.files.reduce((n, f) => n + Number(f.meta.fileSize), 0) / before.length;
    const report = await compactPaimon(loc, {
      sort: { strategy: 'sort', sortOrder: 'c, k' },
      options: { 'target-file-size': String(Math.ceil(perRow * 2)) },
    });
    const text = renderPaimonPlan(report, true);
    expect(text).toMatch(/sort compaction \(order_strategy order, c ASC NULLS FIRST, k ASC NULLS FIRST\)/);
    expect(report.snapshotId, text).toBeDefined();
    expect(snapshotJson(loc, report.snapshotId!).commitKind).toBe('OVERWRITE');
    expect(await rowsOf(loc)).toEqual(before);

    const t1 = await openPaimonTable(loc);
    const partitions = new Set(t0.files.map((f) => JSON.stringify(f.partition)));
    expect(new Set(t1.files.map((f) => JSON.stringify(f.partition)))).toEqual(partitions);
    expect(t1.files.every((f) => f.meta.level === 0 && f.meta.schemaId === t1.schema.id)).toBe(true);
    expect(t1.files.some((f) => t0.files.some((g) => g.meta.fileName === f.meta.fileName))).toBe(false);
    const model = await toTableModel(t1, { allSnapshots: false });
    const cIdx = t1.schema.fields.findIndex((f) => f.name === 'c');
    const kIdx = t1.schema.fields.findIndex((f) => f.name === 'k');
    const cId = t1.schema.fields[cIdx]!.id;
    const cmp = (x: unknown[], y: unknown[]) => {
      for (const i of [cIdx, kIdx]) {
        const a = x[i] as number | null;
        const b = y[i] as number | null;
        if (a === b) continue;
        if (a === null) return -1;
        if (b === null) return 1;
        return a - b;
      }
      return 0;
    };
    let multiFile = 0;
    for (const p of partitions) {
      const files = t1.files.filter((f) => JSON.stringify(f.partition) === p);
      if (files.length > 1) multiFile++;
      const contents = await Promise.all(
        files.map(async (f) => ({ f, rows: (await readFileRecords(t1, f)).map((r) => r.value) })),
      );
      for (const { f, rows } of contents) {
        for (let i = 1; i < rows.length; i++)
          expect(cmp(rows[i - 1]!, rows[i]!), f.meta.fileName).toBeLessThanOrEqual(0);
        const cs = rows.map((r) => r[cIdx]).filter((v): v is number => v !== null);
        const stats = model.dataFiles.find((d) => d.path === f.path)!.stats!;
        if (cs.length) {
          expect(stats.lowerBounds!.get(cId), f.meta.fileName).toBe(Math.min(...cs));
          expect(stats.upperBounds!.get(cId), f.meta.fileName).toBe(Math.max(...cs));
        }
      }
      // across files: ordered ranges that meet at most at equal keys (min/max non-overlapping)
      contents.sort((a, b) => cmp(a.rows[0]!, b.rows[0]!));
      for (let i = 1; i < contents.length; i++)
        expect(cmp(contents[i - 1]!.rows.at(-1)!, contents[i]!.rows[0]!)).toBeLessThanOrEqual(0);
    }
    expect(multiFile, text).toBeGreaterThan(0);
  });

  it('--where picks partitions; a dry run writes nothing; zorder and hilbert keep the rows', async () => {
    const loc = copyFixture(APPEND);
    const before = await rowsOf(loc);
    const t0 = await openPaimonTable(loc);
    const dry = await compactPaimon(loc, { sort: { strategy: 'zorder', columns: ['c', 'k'] }, dryRun: true });
    expect(dry.snapshotId).toBeUndefined();
    expect((await openPaimonTable(loc)).snapshot!.id).toBe(t0.snapshot!.id);
    const p0 = t0.files[0]!.partition;
    const where = `key0 = ${String(p0[0])} and key1 = ${String(p0[1])}`;
    const r = await compactPaimon(loc, { sort: { strategy: 'zorder', columns: ['c', 'k'] }, where });
    expect(r.buckets.filter((b) => b.compact).map((b) => b.partition)).toEqual([p0]);
    const t1 = await openPaimonTable(loc);
    const same = (f: { partition: unknown[] }) => JSON.stringify(f.partition) === JSON.stringify(p0);
    // other partitions: the very same files
    expect(
      t1.files
        .filter((f) => !same(f))
        .map((f) => f.meta.fileName)
        .sort(),
    ).toEqual(
      t0.files
        .filter((f) => !same(f))
        .map((f) => f.meta.fileName)
        .sort(),
    );
    expect(t1.files.filter(same).some((f) => t0.files.some((g) => g.meta.fileName === f.meta.fileName))).toBe(false);
    expect(await rowsOf(loc)).toEqual(before);
    const h = await compactPaimon(loc, { sort: { strategy: 'hilbert', columns: ['k', 'c', 'a'] } });
    expect(h.snapshotId).toBeDefined();
    expect(await rowsOf(loc)).toEqual(before);
  });

  it('a cancel during the rewrite commits nothing and leaves no file behind', async () => {
    const loc = copyFixture(APPEND);
    const before = listFiles(loc);
    const ac = new AbortController();
    let written = 0;
    // cancelled once the first partition's sorted files are written: they must be removed again
    await expect(
      compactPaimon(loc, {
        sort: { strategy: 'sort', sortOrder: 'k' },
        signal: ac.signal,
        onProgress: (e) => {
          if (e.type === 'file-written') written++;
          if (e.type === 'task-done') ac.abort(new Error('test cancel'));
        },
      }),
    ).rejects.toThrow(/cancel/i);
    expect(written).toBeGreaterThan(0);
    expect(listFiles(loc)).toEqual(before);
  });

  it('refuses primary-key and fixed-bucket tables before writing anything', async () => {
    const pk = copyFixture('pk_table_scan_and_read_mor');
    await expect(compactPaimon(pk, { sort: { strategy: 'sort', sortOrder: 'f1' } })).rejects.toThrow(
      /primary key .* is for append tables/,
    );
    const bucketed = copyFixture('append_09');
    await expect(compactPaimon(bucketed, { sort: { strategy: 'zorder', columns: ['f1', 'f2'] } })).rejects.toThrow(
      /bucket=2; sort compaction needs a bucket-unaware table/,
    );
  });
});
