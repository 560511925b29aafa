/**
 * Property 2: sequence-number semantics across compaction. Rewritten files keep the starting snapshot's
 * data sequence number, so
 *  - an equality delete committed after a compaction still deletes rows the compaction rewrote, and not rows
 *    appended after the delete;
 *  - an equality delete (and an append) committed by another writer between a compaction's planning and its
 *    commit still applies to the rewritten rows — the rewrite must not resurrect them.
 * Expected rows come from the model; the sequence numbers are checked on the files directly.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compactionArb, fullCompactionArb, rowArb, type KeySource } from './arbitraries.js';
import { TestTable, type TableShape } from './harness.js';
import { expectScanMatchesModel, expectTimeTravel, sourceRow } from './run-history.js';
import type { Column, Row } from './model.js';

const SCALE = Number(process.env.FLOE_PROP_SCALE ?? 1);
const shapeArb: fc.Arbitrary<TableShape> = fc.record({
  formatVersion: fc.constantFrom(2 as const, 3 as const),
  partitioned: fc.boolean(),
});
const keysArb = fc.array(fc.record({ fromRow: fc.option(fc.nat(1000), { nil: null, freq: 4 }), random: rowArb() }), {
  minLength: 1,
  maxLength: 3,
});
const batchesArb = fc.array(fc.array(rowArb(), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 3 });
/** Two or more files, so that either planner finds work. */
const racingBatchesArb = fc.array(fc.array(rowArb(), { minLength: 1, maxLength: 5 }), { minLength: 2, maxLength: 3 });

function keyColumns(t: TestTable): Column[] {
  return t.shape.partitioned ? ['part', 'id'] : ['id'];
}

function keysFor(t: TestTable, sources: KeySource[]): (bigint | string | null)[][] {
  return sources.map((k) => TestTable.keyOf(sourceRow(t, k), keyColumns(t)));
}

/** Rows re-using the deleted keys: appended after the delete, so it must not touch them. */
function reinserts(keys: (bigint | string | null)[][], t: TestTable, payload: Row[]): Row[] {
  return keys.map((k, i) => {
    const p = payload[i % payload.length]!;
    return t.shape.partitioned
      ? [k[1] as bigint | null, k[0] as string | null, p[2], p[3], p[4]]
      : [k[0] as bigint | null, p[1], p[2], p[3], p[4]];
  });
}

describe('sequence numbers across compaction', () => {
  it(
    'a delete after a compaction removes rewritten rows, not rows appended after it',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          shapeArb,
          batchesArb,
          fullCompactionArb,
          keysArb,
          fc.array(rowArb(), { minLength: 1, maxLength: 3 }),
          fullCompactionArb,
          async (shape, batches, c1, keys, payload, c2) => {
            const t = await TestTable.create(shape);
            try {
              for (const b of batches) await t.append(b);
              const before = await t.fileStats();
              const report = await t.compact(c1);
              expect(report.failedTasks).toEqual([]);
              // rewritten files carry the starting sequence number, never the compaction's own
              const after = await t.fileStats();
              for (const s of after.dataSeqs) expect(s).toBeLessThanOrEqual(before.lastSeq);
              await expectScanMatchesModel(t, 'compaction');

              const deleted = keysFor(t, keys);
              await t.deleteEq(keyColumns(t), deleted);
              await expectScanMatchesModel(t, 'delete after compaction');
              await t.append(reinserts(deleted, t, payload));
              await expectScanMatchesModel(t, 're-insert after delete');

              expect((await t.compact(c2)).failedTasks).toEqual([]);
              await expectScanMatchesModel(t, 'second compaction');
              await expectTimeTravel(t, 'second compaction');
            } finally {
              t.dispose();
            }
          },
        ),
        { numRuns: Math.round(10 * SCALE) },
      );
    },
    120_000 * SCALE,
  );

  it(
    'a delete and an append committed while a compaction runs survive its commit',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          shapeArb,
          racingBatchesArb,
          fc.oneof(fullCompactionArb, compactionArb),
          keysArb,
          fc.array(rowArb(), { minLength: 1, maxLength: 3 }),
          async (shape, batches, c, keys, payload) => {
            const t = await TestTable.create(shape);
            try {
              for (const b of batches) await t.append(b);
              let raced = false;
              const report = await t.compact(c, async (tt) => {
                raced = true;
                // another writer, between floe's planning and its commit
                const deleted = keysFor(tt, keys);
                await tt.deleteEq(keyColumns(tt), deleted);
                await tt.append(reinserts(deleted, tt, payload));
              });
              expect(report.failedTasks).toEqual([]);
              // the racing writer runs when floe first reads the table to commit: whenever there was work, it raced
              if (report.plan.tasks.length > 0) {
                expect(raced).toBe(true);
                expect(report.snapshots.length).toBeGreaterThan(0);
              }
              await expectScanMatchesModel(t, 'compaction racing a delete');
              await expectTimeTravel(t, 'compaction racing a delete');
            } finally {
              t.dispose();
            }
          },
        ),
        { numRuns: Math.round(10 * SCALE) },
      );
    },
    120_000 * SCALE,
  );
});
