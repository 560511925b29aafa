/**
 * Property 1: random histories of appends, equality deletes and upserts on v2/v3 tables, partitioned or
 * not, with 0–2 floe compactions (random planner, options, partial progress) at random points: after every
 * step floe's scan equals the independent model, and after each compaction every earlier snapshot still
 * reads as the model had it then.
 */
import { describe, it } from 'vitest';
import fc from 'fast-check';
import { historyArb } from './arbitraries.js';
import { TestTable, type TableShape } from './harness.js';
import { runHistory } from './run-history.js';

/** FLOE_PROP_SCALE=10 runs ten times as many cases (for bug hunting; the default keeps the file fast). */
const SCALE = Number(process.env.FLOE_PROP_SCALE ?? 1);
/** FLOE_PROP_OPS: longest generated history (write operations). */
const OPS = Number(process.env.FLOE_PROP_OPS ?? 7);

const SHAPES: (TableShape & { runs: number })[] = [
  { formatVersion: 2, partitioned: false, runs: 16 },
  { formatVersion: 2, partitioned: true, runs: 12 },
  { formatVersion: 3, partitioned: false, runs: 8 },
  { formatVersion: 3, partitioned: true, runs: 6 },
];

describe('compaction never loses or resurrects a row (random histories)', () => {
  for (const shape of SHAPES) {
    it(
      `v${shape.formatVersion} ${shape.partitioned ? 'partitioned' : 'unpartitioned'}`,
      async () => {
        await fc.assert(
          fc.asyncProperty(historyArb(shape.partitioned, OPS), async (ops) => {
            const t = await TestTable.create(shape);
            try {
              await runHistory(t, ops);
            } finally {
              t.dispose();
            }
          }),
          { numRuns: Math.round(shape.runs * SCALE) },
        );
      },
      120_000 * SCALE,
    );
  }
});
