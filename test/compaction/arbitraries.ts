/**
 * fast-check generators for the compaction properties: rows drawn from small pools so keys collide across
 * commits (including NULL, longs around 2^53 and at the 64-bit limits, decimals that differ only beyond the
 * 15th significant digit, unicode strings), histories of appends / equality deletes / upserts / compactions,
 * and compaction options for both planners.
 */
import fc from 'fast-check';
import { decimalText, type Column, type Row } from './model.js';
import type { CompactionSpec } from './harness.js';

const TWO53 = 2n ** 53n;
export const LONG_KEYS: bigint[] = [1n, 2n, TWO53, TWO53 + 1n, -(TWO53 + 1n), 2n ** 63n - 1n, -(2n ** 63n)];
/** Unscaled decimal(38,10) values: pairs 1 apart at 38 digits, and the extremes. */
const BIG = 1234567890123456789_0000000001n;
export const DECIMAL_KEYS: string[] = [BIG, BIG + 1n, -BIG, 0n, 1n, 10n ** 38n - 1n, -(10n ** 38n - 1n)].map((u) => decimalText(u));
export const STRINGS = ['', 'x', 'ä', '東京', '😀', 'a\u0000b', 'line\nbreak', 'é' /* e + combining acute */];
export const PARTS = ['a', 'ü', '東京'];

const orNull = <T>(a: fc.Arbitrary<T>, freq = 5) => fc.option(a, { nil: null, freq });

export const longArb = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...LONG_KEYS) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }) },
);
export const decimalArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...DECIMAL_KEYS) },
  { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 38n - 1n), max: 10n ** 38n - 1n }).map((u) => decimalText(u)) },
);
export const stringArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...STRINGS) }, { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) });

/** `partNull`: whether the partition column may be NULL (a NULL partition value). */
export function rowArb(partNull = true): fc.Arbitrary<Row> {
  return fc.tuple(
    orNull(longArb, 6),
    partNull ? orNull(fc.constantFrom(...PARTS), 8) : fc.constantFrom(...PARTS),
    orNull(decimalArb),
    orNull(stringArb),
    orNull(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), 8),
  );
}

/** Equality-delete column sets; a partitioned table's deletes must name the partition column. */
export const UNPARTITIONED_SHAPES: Column[][] = [['id'], ['d'], ['id', 's'], ['s', 'v'], ['part', 'id']];
export const PARTITIONED_SHAPES: Column[][] = [['part', 'id'], ['part', 'd'], ['part', 'id', 's']];

/** A delete key: a live row's key when `fromRow` hits (present), else a random row's (usually absent). */
export interface KeySource {
  fromRow: number | null;
  random: Row;
}
const keySourceArb = fc.record({ fromRow: fc.option(fc.nat(1000), { nil: null, freq: 3 }), random: rowArb() });

export type Op =
  | { kind: 'append'; rows: Row[] }
  | { kind: 'delete'; shape: number; keys: KeySource[] }
  | { kind: 'upsert'; target: KeySource; row: Row }
  | { kind: 'compact'; spec: CompactionSpec };

const tieredOptions = fc.record({
  'self-optimizing.minor.trigger.file-count': fc.constantFrom('1', '2', '3', '12'),
  'self-optimizing.target-size': fc.constantFrom('1024', '2048', '4096', '16384', '134217728'),
  'self-optimizing.fragment-ratio': fc.constantFrom('1', '2', '8'),
  'self-optimizing.full.trigger.interval': fc.constantFrom('-1', '1'),
  'self-optimizing.major.trigger.duplicate-ratio': fc.constantFrom('0.01', '0.1', '0.5'),
  'self-optimizing.full.rewrite-all-files': fc.constantFrom('true', 'false'),
});
const binpackOptions = fc.record({
  'min-input-files': fc.constantFrom('1', '2', '5'),
  'rewrite-all': fc.constantFrom('true', 'false'),
  'target-file-size-bytes': fc.constantFrom('4096', '1048576', '536870912'),
  'delete-file-threshold': fc.constantFrom('1', '2', '2147483647'),
  'max-file-group-size-bytes': fc.constantFrom('8192', '107374182400'),
});
/** Tiered settings under which files are target-size segments and equality deletes turn into position deletes. */
export const EQ_TO_POS_OPTIONS: Record<string, string> = {
  'self-optimizing.target-size': '1024',
  'self-optimizing.fragment-ratio': '1000000',
  'self-optimizing.min-target-size-ratio': '0.000001',
  'self-optimizing.minor.trigger.file-count': '1',
  'self-optimizing.major.trigger.duplicate-ratio': '1000',
  'self-optimizing.full.trigger.interval': '-1',
};
export const compactionArb: fc.Arbitrary<CompactionSpec> = fc.oneof(
  fc.record({ strategy: fc.constant('tiered' as const), options: fc.constant(EQ_TO_POS_OPTIONS), partialProgress: fc.boolean(), maxConcurrentGroups: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ strategy: fc.constant('tiered' as const), options: tieredOptions, partialProgress: fc.boolean(), maxConcurrentGroups: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ strategy: fc.constant('binpack' as const), options: binpackOptions, partialProgress: fc.boolean(), maxConcurrentGroups: fc.integer({ min: 1, max: 3 }) }),
);

/** A compaction that rewrites every data file (and applies every delete) whatever the table looks like. */
export const fullCompactionArb: fc.Arbitrary<CompactionSpec> = fc.oneof(
  fc.record({
    strategy: fc.constant('binpack' as const),
    options: fc.constant({ 'rewrite-all': 'true', 'min-input-files': '1' }),
    partialProgress: fc.boolean(),
    maxConcurrentGroups: fc.integer({ min: 1, max: 2 }),
  }),
  fc.record({
    strategy: fc.constant('tiered' as const),
    options: fc.constant({ 'self-optimizing.minor.trigger.file-count': '1', 'self-optimizing.full.trigger.interval': '1' }),
    partialProgress: fc.boolean(),
    maxConcurrentGroups: fc.integer({ min: 1, max: 2 }),
  }),
);

export function historyArb(partitioned: boolean, maxOps: number): fc.Arbitrary<Op[]> {
  const writeOp: fc.Arbitrary<Op> = fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('append' as const), rows: fc.array(rowArb(), { minLength: 1, maxLength: 6 }) }) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('delete' as const),
        shape: fc.nat((partitioned ? PARTITIONED_SHAPES : UNPARTITIONED_SHAPES).length - 1),
        keys: fc.array(keySourceArb, { minLength: 1, maxLength: 3 }),
      }),
    },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('upsert' as const), target: keySourceArb, row: rowArb() }) },
  );
  // 0–2 compactions at random points
  return fc
    .tuple(fc.array(writeOp, { minLength: 2, maxLength: maxOps }), fc.array(fc.tuple(fc.nat(maxOps), compactionArb), { maxLength: 2 }))
    .map(([writes, compactions]) => {
      const ops: Op[] = [...writes];
      for (const [at, spec] of [...compactions].sort((a, b) => b[0] - a[0])) ops.splice(Math.min(at, ops.length), 0, { kind: 'compact', spec });
      return ops;
    });
}
