/**
 * Property 3: compaction is idempotent. After a random history, compacting with some options and then again
 * with the same options: the second run either commits nothing, or commits a snapshot whose rows are the
 * same (the model's) and which holds no more live files than before it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compactionArb, historyArb } from './arbitraries.js';
import { TestTable, type TableShape } from './harness.js';
import { applyOp, expectScanMatchesModel, expectTimeTravel } from './run-history.js';

const SCALE = Number(process.env.FLOE_PROP_SCALE ?? 1);
const shapeArb: fc.Arbitrary<TableShape> = fc.record({
  formatVersion: fc.constantFrom(2 as const, 3 as const),
  partitioned: fc.boolean(),
});

describe('compaction is idempotent', () => {
  it(
    'a second compaction with the same options changes nothing',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          shapeArb.chain((shape) =>
            fc.tuple(
              fc.constant(shape),
              historyArb(shape.partitioned, 6).map((ops) => ops.filter((o) => o.kind !== 'compact')),
            ),
          ),
          compactionArb,
          async ([shape, ops], spec) => {
            const t = await TestTable.create(shape);
            try {
              for (const [i, op] of ops.entries()) await applyOp(t, op, i);
              expect((await t.compact(spec)).failedTasks).toEqual([]);
              await expectScanMatchesModel(t, 'first compaction');
              const once = await t.fileStats();
              const head = await t.currentSnapshotId();

              const second = await t.compact(spec);
              expect(second.failedTasks).toEqual([]);
              await expectScanMatchesModel(t, 'second compaction');
              if (second.snapshots.length === 0) {
                expect(await t.currentSnapshotId()).toBe(head);
              } else {
                const twice = await t.fileStats();
                expect(twice.data + twice.deletes, 'live files after the second compaction').toBeLessThanOrEqual(
                  once.data + once.deletes,
                );
              }
              await expectTimeTravel(t, 'second compaction');
            } finally {
              t.dispose();
            }
          },
        ),
        { numRuns: Math.round(12 * SCALE) },
      );
    },
    120_000 * SCALE,
  );
});
