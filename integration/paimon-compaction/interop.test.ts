/**
 * Paimon compaction interop: Java Paimon (1.3.1, the oracle) writes primary-key tables with many level-0
 * files (write-only=true) — inserts, updates and deletes across partitions and buckets — in each merge
 * engine; `floe compact` compacts them; Java Paimon and pypaimon read the same rows as a hand-kept model
 * of the writes; the levels floe produced are the ones the universal picker chooses for the runs read
 * before compaction; Java then keeps writing and runs its own full compaction on top, and the rows still
 * match. Local disk only: the Java oracle's Paimon catalog writes local paths (no S3 FileIO in its jar).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalLine, canonicalRow, javaPaimon, type PaimonChange } from '../oracles/index.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { decodeKeys, groupByBucket, sortedRuns, trimmedPrimaryKeyFields } from '../../connectors/paimon/table.js';
import { decide, optionsFromProperties } from '../../src/core/planning/universal/index.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';
import { Model, TYPES, commits, floeLines, lines, pypaimonLines, python, spec, type Engine } from './model.js';

/** What the universal picker decides for each bucket's runs as they are now (the expectation). */
async function expectedUnits(loc: string): Promise<Map<string, { outputLevel: number; files: Set<string> } | null>> {
  const table = await openPaimonTable(loc);
  const keyTypes = trimmedPrimaryKeyFields(table.schema).map((f) => f.type);
  const opts = { ...optionsFromProperties(table.schema.options), writeOnly: false };
  const out = new Map<string, { outputLevel: number; files: Set<string> } | null>();
  for (const g of groupByBucket(table.files)) {
    const runs = sortedRuns(g.files, (f) => decodeKeys(table, f.meta)?.min, keyTypes).map((r) => ({
      level: r.level,
      size: r.files.reduce((n, f) => n + Number(f.meta.fileSize), 0),
      files: r.files,
    }));
    const d = decide(6, runs, opts, Date.now(), { lastFullCompactionMs: null });
    out.set(
      `${JSON.stringify(g.partition)}|${g.bucket}`,
      d.pick
        ? {
            outputLevel: d.pick.outputLevel,
            files: new Set(d.pick.runs.flatMap((r) => (r.files ?? []).map((f) => f.meta.fileName))),
          }
        : null,
    );
  }
  return out;
}

const ENGINES: Engine[] = ['deduplicate', 'first-row', 'partial-update', 'aggregation'];

describe('Paimon compaction interop (Java Paimon oracle)', async () => {
  const avail = await javaPaimon.available();
  const pyOk = existsSync(python) && spawnSync(python, ['-c', 'import pypaimon']).status === 0;
  let warehouse = '';
  const models = new Map<Engine, Model>();

  beforeAll(async () => {
    if (!avail.ok) return;
    warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-interop-'));
    const specs = ENGINES.map((e) => {
      const m = new Model(e);
      models.set(e, m);
      return spec(e, e.replace('-', '_'), commits(e, 0, m), true);
    });
    await javaPaimon.writeMany(warehouse, specs);
  });
  afterAll(() => {
    if (warehouse) rmSync(warehouse, { recursive: true, force: true });
  });

  for (const engine of ENGINES) {
    it.skipIf(!avail.ok)(
      `${engine}: floe compacts Java's L0 files; Java${pyOk ? ' and pypaimon' : ''} read the same rows; Java keeps writing and compacting`,
      async () => {
        const table = engine.replace('-', '_');
        const loc = path.join(warehouse, 'db.db', table);
        const model = models.get(engine)!;
        const expected = model.lines();
        expect(expected.length).toBeGreaterThan(4);
        expect(await floeLines(loc)).toEqual(engine === 'first-row' ? [] : expected); // first-row hides L0 from batch reads

        // Before: only L0 files, in both partitions and both buckets.
        const before = await openPaimonTable(loc);
        expect(before.files.every((f) => f.meta.level === 0)).toBe(true);
        expect(new Set(before.files.map((f) => `${f.partition[0]}|${f.bucket}`)).size).toBe(4);
        const want = await expectedUnits(loc);

        const report = await compactPaimon(loc, {});
        const text = renderPaimonPlan(report, true);
        expect(report.snapshotId, text).toBeDefined();

        // Layout: every bucket went where the universal picker sends its runs.
        const after = await openPaimonTable(loc);
        expect(after.snapshot!.commitKind).toBe('COMPACT');
        for (const b of report.buckets) {
          const key = `${JSON.stringify(b.partition)}|${b.bucket}`;
          const unit = want.get(key);
          expect(b.compact, `${key}\n${text}`).toBe(!!unit);
          if (!unit) continue;
          expect(b.outputLevel).toBe(unit.outputLevel);
          const files = after.files.filter((f) => `${JSON.stringify(f.partition)}|${f.bucket}` === key);
          for (const f of files) {
            if (unit.files.has(f.meta.fileName) && f.meta.level === 0)
              throw new Error(`${f.meta.fileName} was in the unit but is still at L0`);
            if (!before.files.some((x) => x.meta.fileName === f.meta.fileName))
              expect(f.meta.level).toBe(unit.outputLevel);
          }
        }

        // Readers agree with the model.
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected);
        expect(await floeLines(loc)).toEqual(expected);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected);

        // Java keeps writing on top, then compacts fully with its own code.
        await javaPaimon.write(warehouse, spec(engine, table, commits(engine, 1, model), false));
        await javaPaimon.compact(warehouse, { database: 'db', table, full: true });
        const expected2 = model.lines();
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected2);
        expect(await floeLines(loc)).toEqual(expected2);

        // And floe again over Java's compacted layout plus fresh writes.
        await javaPaimon.write(warehouse, spec(engine, table, commits(engine, 2, model), false));
        const full = await compactPaimon(loc, { full: true });
        expect(full.snapshotId).toBeDefined();
        const final = await openPaimonTable(loc);
        expect(final.files.every((f) => f.meta.level === 5)).toBe(true);
        const expected3 = model.lines();
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected3);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected3);
      },
    );
  }
});

describe('Paimon append-table compaction interop (Java Paimon oracle)', async () => {
  const avail = await javaPaimon.available();
  for (const bucket of ['-1', '2']) {
    it.skipIf(!avail.ok)(
      `bucket=${bucket}: floe bin-packs Java's small files; Java reads the same rows, keeps appending and compacting`,
      async () => {
        const warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-append-'));
        try {
          const all: string[] = [];
          const batches = (round: number) =>
            Array.from({ length: 6 }, (_, c) =>
              Array.from({ length: 5 }, (_, i) => {
                const row = { id: round * 100 + c * 10 + i, p: i % 2 ? 'a' : 'b', v: `r${round}c${c}i${i}`, n: c * i };
                all.push(canonicalLine(canonicalRow(TYPES, row)));
                return { row } as PaimonChange;
              }),
            );
          const options: Record<string, string> = { bucket, 'write-only': 'true' };
          if (bucket !== '-1') options['bucket-key'] = 'id';
          await javaPaimon.write(warehouse, {
            database: 'db',
            table: 't',
            fields: [
              { name: 'id', type: 'int' },
              { name: 'p', type: 'string' },
              { name: 'v', type: 'string' },
              { name: 'n', type: 'long' },
            ],
            partitionKeys: ['p'],
            options,
            commits: batches(0),
          });
          const loc = path.join(warehouse, 'db.db', 't');
          const before = await openPaimonTable(loc);
          const report = await compactPaimon(loc, {});
          const text = renderPaimonPlan(report, true);
          expect(report.snapshotId, text).toBeDefined();
          const after = await openPaimonTable(loc);
          expect(after.files.length, text).toBeLessThan(before.files.length);
          // Fixed buckets (BucketedAppendCompactManager): the first window of 5 small files becomes one file.
          // Bucket-unaware (AppendCompactCoordinator): all small files of a partition form one bin (≥ 5
          // files, far below 2 × 256 MB) → one file.
          for (const b of report.buckets) {
            if (b.filesBefore.length >= 5)
              expect(b.filesAfter.length, text).toBe(bucket === '-1' ? 1 : b.filesBefore.length - 4);
          }
          expect(after.files.every((f) => f.meta.level === 0)).toBe(true);
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual([...all].sort());
          await javaPaimon.write(warehouse, { database: 'db', table: 't', commits: batches(1) });
          // Bucket-unaware tables are compacted by Java's coordinator job, not by a table write (the oracle's
          // paimon-compact drives writes), so Java's own compaction step runs for fixed buckets only.
          if (bucket !== '-1') await javaPaimon.compact(warehouse, { database: 'db', table: 't', full: true });
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual([...all].sort());
          expect(await floeLines(loc)).toEqual([...all].sort());
          // floe again: over the new small files (bucket-unaware), or nothing to do after Java's full
          // compaction left one file per bucket (fewer than FULL_COMPACT_MIN_FILE).
          const again = await compactPaimon(loc, { full: true });
          if (bucket === '-1') expect(again.snapshotId).toBeDefined();
          else expect(again.buckets.every((b) => !b.compact)).toBe(true);
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual([...all].sort());
        } finally {
          rmSync(warehouse, { recursive: true, force: true });
        }
      },
    );
  }
});
