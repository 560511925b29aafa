/**
 * Issue 9 item 0, as a property: random histories with positional deletes — on v3 deletion vectors of
 * several data files sharing one Puffin file, on v2 position delete files naming several data files —
 * next to bulk files, small appends, equality deletes and upserts, compacted by tiered and bin-pack
 * settings that rewrite only some files. After every step floe's scan equals the independent model (no
 * deleted row comes back, no live row is lost), and every earlier snapshot still reads as it did.
 */
import { describe, it } from 'vitest';
import fc from 'fast-check';
import { positionalHistoryArb } from './arbitraries.js';
import { TestTable, type TableShape } from './harness.js';
import { runHistory } from './run-history.js';

/** FLOE_PROP_SCALE=10 runs ten times as many cases (for bug hunting; the default keeps the file fast). */
const SCALE = Number(process.env.FLOE_PROP_SCALE ?? 1);
const OPS = Number(process.env.FLOE_PROP_OPS ?? 8);

const SHAPES: (TableShape & { runs: number })[] = [
  { formatVersion: 3, partitioned: false, runs: 10 },
  { formatVersion: 3, partitioned: true, runs: 8 },
  { formatVersion: 2, partitioned: false, runs: 5 },
  { formatVersion: 2, partitioned: true, runs: 4 },
];

describe('compaction with positional deletes never loses or resurrects a row (random histories)', () => {
  for (const shape of SHAPES) {
    it(
      `v${shape.formatVersion} ${shape.partitioned ? 'partitioned' : 'unpartitioned'}: ${shape.formatVersion >= 3 ? 'DVs shared in one Puffin file' : 'position delete files over several data files'}`,
      async () => {
        await fc.assert(
          fc.asyncProperty(positionalHistoryArb(shape.partitioned, OPS), async (ops) => {
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
      240_000 * SCALE,
    );
  }
});
