/**
 * Append tables with deletion vectors (bucket-unaware and fixed-bucket) and a dynamic-bucket primary-key
 * table with deletion vectors, written by Java Paimon 1.3.1 (rows deleted the way Paimon's Spark DELETE
 * does it, so DV index files exist). floe compacts them; the oracles:
 * - the rows Java and pypaimon read BEFORE floe's compaction (and a hand-kept model) are what Java,
 *   pypaimon and floe read after it;
 * - Java's own compaction of an identical copy keeps the same old files with the same DVs (same picks:
 *   AppendCompactCoordinator in DV mode, BucketedAppendCompactManager's window);
 * - no DV range is left for a rewritten file; nothing the base snapshot referenced is deleted;
 * - Java keeps writing, deleting and compacting on top, then floe compacts in full, then Java again.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { javaPaimon } from '../oracles/index.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import type { PaimonTable } from '../../connectors/paimon/table.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';
import { Model, commits, floeLines, lines, pypaimonLines, python, spec } from '../paimon-compaction/model.js';
import { AppendModel, FIELDS, allFiles, danglingDvRanges, dvsOf } from './support.js';

const DV = { 'deletion-vectors.enabled': 'true', 'write-only': 'true' };
const APPEND = [
  // 32 KB target: the 4000-row first commit rolls into files above the coordinator's 0.7 × target limit,
  // so a large file with a few deleted rows stays (its DV rewritten) while the small ones are compacted
  { table: 'unaware_dv', options: { ...DV, 'target-file-size': '32kb' } },
  { table: 'fixed_dv', options: { ...DV, bucket: '2', 'bucket-key': 'id' } },
];

describe('Paimon append tables with deletion vectors (Java Paimon 1.3 oracle)', async () => {
  const avail = await javaPaimon.available();
  if (!avail.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${avail.reason}`);
  const pyOk = existsSync(python) && spawnSync(python, ['-c', 'import pypaimon']).status === 0;
  if (!pyOk) console.warn('pypaimon unavailable: the pypaimon reads are left out');
  let warehouse = '';
  let twin = '';
  const temps: string[] = [];
  const models = new Map<string, AppendModel>();
  const read = async (wh: string, table: string) => lines(await javaPaimon.read(wh, { database: 'db', table }));

  beforeAll(async () => {
    if (!avail.ok) return;
    warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-append-dv-'));
    for (const { table, options } of APPEND) {
      const m = new AppendModel();
      models.set(table, m);
      const batches =
        table === 'unaware_dv'
          ? [m.batch(0, 4000), ...[1, 2, 3, 4, 5].map((c) => m.batch(c * 10_000, 10))]
          : [0, 1, 2, 3, 4, 5, 6].map((c) => m.batch(c * 10_000, 20));
      await javaPaimon.write(warehouse, {
        database: 'db',
        table,
        fields: FIELDS,
        partitionKeys: ['p'],
        options,
        commits: batches,
      });
      // two DELETEs: the second touches the index file of the first (Java merges and rewrites it)
      if (table === 'unaware_dv') {
        await m.delete(warehouse, table, [0, 1, 10_001, 10_003, 20_002, 30_005]);
        await m.delete(warehouse, table, [10_005, 40_001, 2]);
      } else {
        await m.delete(warehouse, table, [0, 1, 2, 3, 60_001, 60_004]);
        await m.delete(warehouse, table, [10_002, 60_005, 60_006]);
      }
    }
    twin = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-append-dv-twin-'));
    cpSync(warehouse, twin, { recursive: true });
  });
  afterAll(() => {
    for (const d of [warehouse, twin, ...temps]) if (d) rmSync(d, { recursive: true, force: true });
  });

  for (const { table } of APPEND) {
    it.skipIf(!avail.ok)(
      `${table}: floe drops the deleted rows and rewrites the DV index as Java does; Java${pyOk ? ', pypaimon' : ''} and floe read the same rows; Java keeps going`,
      async () => {
        const loc = path.join(warehouse, 'db.db', table);
        const twinLoc = path.join(twin, 'db.db', table);
        const m = models.get(table)!;
        // the expected rows, from Java and pypaimon before floe touches the table
        const expected = await read(warehouse, table);
        expect(expected).toEqual(m.lines());
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected);
        const before = await openPaimonTable(loc);
        const beforeDvs = await dvsOf(before);
        expect(beforeDvs.size).toBeGreaterThan(1);
        const filesBefore = allFiles(loc);

        const report = await compactPaimon(loc, {});
        const text = renderPaimonPlan(report, true);
        expect(report.snapshotId, text).toBeDefined();
        await javaPaimon.compact(twin, { database: 'db', table, full: false });

        const mine = await openPaimonTable(loc);
        const java = await openPaimonTable(twinLoc);
        expect(mine.snapshot!.commitKind).toBe('COMPACT');
        expect(java.snapshot!.commitKind).toBe('COMPACT');
        const old = new Set(before.files.map((f) => f.meta.fileName));
        const kept = (t: PaimonTable) =>
          t.files
            .map((f) => f.meta.fileName)
            .filter((n) => old.has(n))
            .sort();
        // the same old files kept, with the same DVs; the rewritten files' DVs are gone
        expect(kept(mine), text).toEqual(kept(java));
        expect(kept(mine).length, text).toBeLessThan(before.files.length);
        const myDvs = await dvsOf(mine);
        expect(myDvs).toEqual(await dvsOf(java));
        expect(myDvs.size, `${table}: a kept file with a DV (the scenario)`).toBeGreaterThan(0);
        expect(danglingDvRanges(mine)).toEqual([]);
        for (const [f, pos] of myDvs) expect(pos).toEqual(beforeDvs.get(f));
        if (table === 'unaware_dv')
          for (const e of mine.indexEntries.filter((x) => x.indexType === 'DELETION_VECTORS')) expect(e.bucket).toBe(0);
        // rows read by Java, pypaimon and floe
        expect(await read(warehouse, table)).toEqual(expected);
        expect(await read(twin, table)).toEqual(expected);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected);
        expect(await floeLines(loc)).toEqual(expected);
        const now = new Set(allFiles(loc));
        for (const f of filesBefore) expect(now.has(f), f).toBe(true);

        // Java keeps writing and deleting (also rows floe rewrote), compacts; floe again in full; Java again
        await javaPaimon.write(warehouse, {
          database: 'db',
          table,
          commits: [m.batch(90_000, 20), m.batch(91_000, 20)],
        });
        await m.delete(warehouse, table, [10_000, 10_002, 20_003, 90_001, 91_002]);
        const expected2 = await read(warehouse, table);
        expect(expected2).toEqual(m.lines());
        const again = await compactPaimon(loc, {});
        expect(again.snapshotId, renderPaimonPlan(again, true)).toBeDefined();
        expect(await read(warehouse, table)).toEqual(expected2);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected2);
        await javaPaimon.compact(warehouse, { database: 'db', table, full: false });
        await m.delete(warehouse, table, [3, 91_003]);
        const expected3 = await read(warehouse, table);
        expect(expected3).toEqual(m.lines());
        const full = await compactPaimon(loc, { full: true });
        expect(full.snapshotId, renderPaimonPlan(full, true)).toBeDefined();
        const final = await openPaimonTable(loc);
        expect(
          final.files.some((f) => f.dv),
          'a full compaction leaves no DV',
        ).toBe(false);
        expect(danglingDvRanges(final)).toEqual([]);
        expect(await read(warehouse, table)).toEqual(expected3);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected3);
        expect(await floeLines(loc)).toEqual(expected3);
        await javaPaimon.write(warehouse, { database: 'db', table, commits: [m.batch(92_000, 10)] });
        await m.delete(warehouse, table, [92_001, 4]);
        await javaPaimon.compact(warehouse, { database: 'db', table, full: true });
        expect(await read(warehouse, table)).toEqual(m.lines());
      },
    );
  }

  it.skipIf(!avail.ok)(
    'a Java DELETE committed while floe compacts the same files abandons the compaction when carrying over is off (no deleted row comes back; re-planning off)',
    async () => {
      const wh = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-append-dv-race-'));
      temps.push(wh);
      const m = new AppendModel();
      await javaPaimon.write(wh, {
        database: 'db',
        table: 'race',
        fields: FIELDS,
        partitionKeys: ['p'],
        options: DV,
        commits: [0, 1, 2, 3, 4, 5].map((c) => m.batch(c * 100, 10)),
      });
      const loc = path.join(wh, 'db.db', 'race');
      const before = await openPaimonTable(loc);
      expect(before.files.some((f) => f.dv)).toBe(false);
      let raced = false;
      // floe rewrites files without DVs (so it writes no DV index); Java deletes rows of them meanwhile
      await expect(
        compactPaimon(loc, {
          maxReplans: 0, // the race itself (replan.test.ts: the default re-plans)
          options: { 'floe.rebase-concurrent-deletes': 'false' }, // replan.test.ts: the default carries the DVs over
          beforePublish: async () => {
            if (raced) return;
            raced = true;
            await m.delete(wh, 'race', [1, 302]);
          },
        }),
      ).rejects.toThrow(/deletion vector of .* changed/);
      expect(raced).toBe(true);
      expect(await read(wh, 'race')).toEqual(m.lines());
      const live = new Set(allFiles(loc));
      for (const f of before.files) expect(live.has(f.path)).toBe(true);
      // a fresh run compacts them with the new DVs applied
      const again = await compactPaimon(loc, {});
      expect(again.snapshotId, renderPaimonPlan(again, true)).toBeDefined();
      expect(await read(wh, 'race')).toEqual(m.lines());
      if (pyOk) expect(pypaimonLines(wh, 'race')).toEqual(m.lines());
    },
  );

  it.skipIf(!avail.ok)(
    `dynamic-bucket primary-key table (bucket = -1) with DVs: Java${pyOk ? ', pypaimon' : ''} and floe read the rows Java read before; Java keeps going`,
    async () => {
      const wh = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-dynamic-dv-'));
      try {
        const model = new Model('deduplicate');
        const options = { 'deletion-vectors.enabled': 'true', bucket: '-1' };
        await javaPaimon.writeDynamic(
          wh,
          spec(
            'deduplicate',
            'dyn',
            commits('deduplicate', 0, model, { batches: 3, perBatch: 200, keys: 300 }),
            true,
            options,
          ),
        );
        await javaPaimon.compact(wh, { database: 'db', table: 'dyn', full: true });
        await javaPaimon.writeDynamic(
          wh,
          spec('deduplicate', 'dyn', commits('deduplicate', 1, model, { batches: 2, perBatch: 20, keys: 300 }), false),
        );
        const loc = path.join(wh, 'db.db', 'dyn');
        // level-0 files of a DV table are invisible to readers until compacted: the expected rows are
        // what Java reads after its own compaction of an identical copy (and the hand-kept model)
        const twinWh = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-dynamic-dv-twin-'));
        temps.push(twinWh);
        cpSync(wh, twinWh, { recursive: true });
        await javaPaimon.compact(twinWh, { database: 'db', table: 'dyn', full: false });
        const expected = await read(twinWh, 'dyn');
        expect(expected).toEqual(model.lines());
        if (pyOk) expect(pypaimonLines(twinWh, 'dyn')).toEqual(expected);
        const before = await openPaimonTable(loc);
        expect(before.files.some((f) => f.meta.level === 0)).toBe(true);
        expect(before.indexEntries.some((e) => e.indexType === 'HASH')).toBe(true);

        const report = await compactPaimon(loc, {});
        expect(report.snapshotId, renderPaimonPlan(report, true)).toBeDefined();
        const after = await openPaimonTable(loc);
        expect(after.files.some((f) => f.meta.level === 0)).toBe(false);
        expect(
          after.files.some((f) => f.dv),
          'the lookup compaction marked old rows',
        ).toBe(true);
        // the dynamic-bucket hash index is carried over untouched
        const hash = (t: PaimonTable) =>
          t.indexEntries
            .filter((e) => e.indexType === 'HASH')
            .map((e) => e.fileName)
            .sort();
        expect(hash(after)).toEqual(hash(before));
        expect(danglingDvRanges(after)).toEqual([]);
        expect(await read(wh, 'dyn')).toEqual(expected);
        if (pyOk) expect(pypaimonLines(wh, 'dyn')).toEqual(expected);
        expect(await floeLines(loc)).toEqual(expected);

        await javaPaimon.writeDynamic(
          wh,
          spec('deduplicate', 'dyn', commits('deduplicate', 2, model, { batches: 2, perBatch: 20, keys: 300 }), false),
        );
        await javaPaimon.compact(wh, { database: 'db', table: 'dyn', full: false });
        const expected2 = await read(wh, 'dyn');
        expect(expected2).toEqual(model.lines());
        const full = await compactPaimon(loc, { full: true });
        expect(full.snapshotId, renderPaimonPlan(full, true)).toBeDefined();
        expect(await read(wh, 'dyn')).toEqual(expected2);
        if (pyOk) expect(pypaimonLines(wh, 'dyn')).toEqual(expected2);
        await javaPaimon.writeDynamic(
          wh,
          spec('deduplicate', 'dyn', commits('deduplicate', 3, model, { batches: 1, perBatch: 20, keys: 300 }), false),
        );
        await javaPaimon.compact(wh, { database: 'db', table: 'dyn', full: true });
        expect(await read(wh, 'dyn')).toEqual(model.lines());
      } finally {
        rmSync(wh, { recursive: true, force: true });
      }
    },
  );
});
