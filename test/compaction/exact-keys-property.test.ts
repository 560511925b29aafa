/**
 * Property 4: equality deletes on wide keys compare exactly. Keys come in families of neighbours — longs
 * beyond 2^53 one apart, decimal(38,10) values one unit in the 10th fraction digit apart (so they differ
 * only beyond the 15th significant digit) — and deletes name some members of a family: exactly the matching
 * rows go, before compaction, after it, and for deletes committed after it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { compactionArb, fullCompactionArb, stringArb } from './arbitraries.js';
import { TestTable, type TableShape } from './harness.js';
import { expectScanMatchesModel, expectTimeTravel } from './run-history.js';
import { decimalText, type Column, type Row, type Value } from './model.js';

const SCALE = Number(process.env.FLOE_PROP_SCALE ?? 1);
const LONG_MIN = -(2n ** 63n);
const LONG_MAX = 2n ** 63n - 1n;
const DEC_MAX = 10n ** 38n - 1n;

const clamp = (v: bigint, lo: bigint, hi: bigint) => (v < lo ? lo : v > hi ? hi : v);

/** Three neighbours starting at a base (clamped into the type's range, so some collapse at the edges). */
const longFamily = fc
  .oneof(
    fc.constantFrom(2n ** 53n - 1n, 2n ** 53n, -(2n ** 53n) - 1n, LONG_MAX - 2n, LONG_MIN),
    fc.bigInt({ min: LONG_MIN, max: LONG_MAX }),
  )
  .map((b) => [0n, 1n, 2n].map((o) => clamp(b + o, LONG_MIN, LONG_MAX)));
const decimalFamily = fc
  .oneof(
    fc.constantFrom(1234567890123456789_0000000001n, DEC_MAX - 2n, -DEC_MAX, 10n ** 25n),
    fc.bigInt({ min: -DEC_MAX, max: DEC_MAX }),
  )
  .map((b) => [0n, 1n, 2n].map((o) => decimalText(clamp(b + o, -DEC_MAX, DEC_MAX))));

const caseArb = fc.record({
  shape: fc.record({
    formatVersion: fc.constantFrom(2 as const, 3 as const),
    partitioned: fc.boolean(),
  }) as fc.Arbitrary<TableShape>,
  longs: fc.array(longFamily, { minLength: 1, maxLength: 2 }).map((f) => f.flat()),
  decimals: fc.array(decimalFamily, { minLength: 1, maxLength: 2 }).map((f) => f.flat()),
  /** rows as (long index, decimal index, part, s) — indices into the families, null for a NULL key */
  rows: fc.array(
    fc.tuple(
      fc.option(fc.nat(5), { nil: null, freq: 8 }),
      fc.option(fc.nat(5), { nil: null, freq: 8 }),
      fc.constantFrom('a', 'b'),
      stringArb,
    ),
    { minLength: 2, maxLength: 12 },
  ),
  split: fc.nat(12),
  /** deletes as (column set, picks into the families) */
  deletes: fc.array(
    fc.tuple(
      fc.constantFrom(0, 1, 2),
      fc.array(fc.tuple(fc.nat(5), fc.nat(5), fc.constantFrom('a', 'b')), { minLength: 1, maxLength: 3 }),
    ),
    { minLength: 2, maxLength: 3 },
  ),
  full: fullCompactionArb,
  later: compactionArb,
});

const SETS: Column[][] = [['id'], ['d'], ['id', 'd']];

describe('equality deletes on wide keys are exact', () => {
  it(
    'long keys > 2^53 one apart and decimal(38,10) keys differing past the 15th digit',
    async () => {
      await fc.assert(
        fc.asyncProperty(caseArb, async (c) => {
          const t = await TestTable.create(c.shape);
          try {
            const pick = <T>(xs: T[], i: number | null): T | null => (i === null ? null : xs[i % xs.length]!);
            const rows: Row[] = c.rows.map(([li, di, part, s], n) => [
              pick(c.longs, li),
              part,
              pick(c.decimals, di),
              s,
              BigInt(n),
            ]);
            const cut = 1 + (c.split % rows.length);
            await t.append(rows.slice(0, cut));
            if (cut < rows.length) await t.append(rows.slice(cut));
            const del = async (i: number) => {
              const [set, picks] = c.deletes[i]!;
              const cols: Column[] = c.shape.partitioned ? ['part', ...SETS[set]!] : SETS[set]!;
              const keys: Value[][] = picks.map(([li, di, part]) =>
                cols.map((col) =>
                  col === 'id'
                    ? c.longs[li % c.longs.length]!
                    : col === 'd'
                      ? c.decimals[di % c.decimals.length]!
                      : part,
                ),
              );
              const before = t.model.rows().length;
              await t.deleteEq(cols, keys);
              return before - t.model.rows().length;
            };
            await del(0);
            await expectScanMatchesModel(t, 'delete before compaction');
            expect((await t.compact(c.full)).failedTasks).toEqual([]);
            await expectScanMatchesModel(t, 'full compaction');
            await del(1);
            await expectScanMatchesModel(t, 'delete after compaction');
            if (c.deletes.length > 2) await del(2);
            expect((await t.compact(c.later)).failedTasks).toEqual([]);
            await expectScanMatchesModel(t, 'second compaction');
            await expectTimeTravel(t, 'second compaction');
          } finally {
            t.dispose();
          }
        }),
        { numRuns: Math.round(15 * SCALE) },
      );
    },
    120_000 * SCALE,
  );
});
