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
export const DECIMAL_KEYS: string[] = [BIG, BIG + 1n, -BIG, 0n, 1n, 10n ** 38n - 1n, -(10n ** 38n - 1n)].map((u) =>
  decimalText(u),
);
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
export const stringArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
);

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
export const PARTITIONED_SHAPES: Column[][] = [
  ['part', 'id'],
  ['part', 'd'],
  ['part', 'id', 's'],
];

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
  | { kind: 'compact'; spec: CompactionSpec }
  /** One larger file (`count` rows in one partition), so later compactions rewrite some files and not others. */
  | { kind: 'bulk'; count: number; part: string; row: Row }
  /** Deletes rows by position: DVs in one shared Puffin file (v3) or position delete files (v2). */
  | { kind: 'positional'; targets: { file: number; positions: number[] }[] };

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
  fc.record({
    strategy: fc.constant('tiered' as const),
    options: fc.constant(EQ_TO_POS_OPTIONS),
    partialProgress: fc.boolean(),
    maxConcurrentGroups: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    strategy: fc.constant('tiered' as const),
    options: tieredOptions,
    partialProgress: fc.boolean(),
    maxConcurrentGroups: fc.integer({ min: 1, max: 3 }),
  }),
  fc.record({
    strategy: fc.constant('binpack' as const),
    options: binpackOptions,
    partialProgress: fc.boolean(),
    maxConcurrentGroups: fc.integer({ min: 1, max: 3 }),
  }),
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
    options: fc.constant({
      'self-optimizing.minor.trigger.file-count': '1',
      'self-optimizing.full.trigger.interval': '1',
    }),
    partialProgress: fc.boolean(),
    maxConcurrentGroups: fc.integer({ min: 1, max: 2 }),
  }),
);

export function historyArb(partitioned: boolean, maxOps: number): fc.Arbitrary<Op[]> {
  const writeOp: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        rows: fc.array(rowArb(), { minLength: 1, maxLength: 6 }),
      }),
    },
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
    .tuple(
      fc.array(writeOp, { minLength: 2, maxLength: maxOps }),
      fc.array(fc.tuple(fc.nat(maxOps), compactionArb), { maxLength: 2 }),
    )
    .map(([writes, compactions]) => {
      const ops: Op[] = [...writes];
      for (const [at, spec] of [...compactions].sort((a, b) => b[0] - a[0]))
        ops.splice(Math.min(at, ops.length), 0, { kind: 'compact', spec });
      return ops;
    });
}

/**
 * Compactions that rewrite only part of a table built by `positionalHistoryArb`: targets between the small
 * appends and the bulk files, tiered (with and without eq→pos) and bin-pack.
 */
export const partialCompactionArb: fc.Arbitrary<CompactionSpec> = fc.oneof(
  // tiered: the bulk files (~12–30 KiB) are segments or target-size files, the small appends fragments
  {
    weight: 3,
    arbitrary: fc.record({
      strategy: fc.constant('tiered' as const),
      options: fc.record({
        'self-optimizing.target-size': fc.constantFrom('8192', '16384', '32768', '262144'),
        'self-optimizing.minor.trigger.file-count': fc.constantFrom('1', '2', '12'),
        'self-optimizing.fragment-ratio': fc.constantFrom('2', '8'),
        'self-optimizing.full.trigger.interval': fc.constantFrom('-1', '-1', '-1', '1'),
      }),
      partialProgress: fc.boolean(),
      maxConcurrentGroups: fc.integer({ min: 1, max: 3 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      strategy: fc.constant('tiered' as const),
      options: fc.constant(EQ_TO_POS_OPTIONS),
      partialProgress: fc.boolean(),
      maxConcurrentGroups: fc.integer({ min: 1, max: 2 }),
    }),
  },
  // bin-pack: files between 0.75× and 1.8× the target stay (unless their deletes reach the threshold)
  {
    weight: 3,
    arbitrary: fc.record({
      strategy: fc.constant('binpack' as const),
      options: fc.record({
        'target-file-size-bytes': fc.constantFrom('8192', '16384', '20480'),
        'min-input-files': fc.constantFrom('1', '2'),
        'delete-file-threshold': fc.constantFrom('1', '2147483647', '2147483647'),
        'rewrite-all': fc.constantFrom('false', 'false', 'false', 'true'),
      }),
      partialProgress: fc.boolean(),
      maxConcurrentGroups: fc.integer({ min: 1, max: 3 }),
    }),
  },
);

/**
 * Gives every written row a unique `v` (in write order), so a positional delete can name the model rows it
 * removes by reading `v` at its positions (test/compaction/positional-deletes.ts).
 */
export function withUniqueV(ops: Op[]): Op[] {
  let next = 1n;
  const tag = (r: Row): Row => [r[0], r[1], r[2], r[3], next++];
  return ops.map((op): Op => {
    if (op.kind === 'append') return { ...op, rows: op.rows.map(tag) };
    if (op.kind === 'upsert') return { ...op, row: tag(op.row) };
    if (op.kind === 'bulk') {
      const first = next;
      next += BigInt(op.count);
      return { ...op, row: [op.row[0], op.row[1], op.row[2], op.row[3], first] };
    }
    return op;
  });
}

/** Histories of appends, bulk appends, equality deletes, upserts, positional deletes and partial compactions. */
export function positionalHistoryArb(partitioned: boolean, maxOps: number): fc.Arbitrary<Op[]> {
  const targetArb = fc.record({ file: fc.nat(50), positions: fc.array(fc.nat(5000), { minLength: 1, maxLength: 3 }) });
  const writeOp: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        rows: fc.array(rowArb(), { minLength: 1, maxLength: 4 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('bulk' as const),
        count: fc.integer({ min: 800, max: 4000 }),
        part: fc.constantFrom(...PARTS),
        row: rowArb(),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('delete' as const),
        shape: fc.nat((partitioned ? PARTITIONED_SHAPES : UNPARTITIONED_SHAPES).length - 1),
        keys: fc.array(keySourceArb, { minLength: 1, maxLength: 3 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('upsert' as const), target: keySourceArb, row: rowArb() }) },
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.constant('positional' as const),
        targets: fc.array(targetArb, { minLength: 2, maxLength: 5 }),
      }),
    },
  );
  // every table starts with a larger file, a few small ones and one positional delete across several of them
  // (one shared Puffin file on v3), so compactions that rewrite some files and not others meet shared DVs
  const prefix: fc.Arbitrary<Op[]> = fc
    .tuple(
      fc.record({
        kind: fc.constant('bulk' as const),
        count: fc.integer({ min: 1500, max: 3500 }),
        part: fc.constantFrom(...PARTS),
        row: rowArb(),
      }),
      fc.array(
        fc.record({ kind: fc.constant('append' as const), rows: fc.array(rowArb(), { minLength: 1, maxLength: 3 }) }),
        { minLength: 3, maxLength: 5 },
      ),
      fc.record({
        kind: fc.constant('positional' as const),
        targets: fc.array(targetArb, { minLength: 3, maxLength: 6 }),
      }),
    )
    .map(([bulk, appends, positional]): Op[] => [bulk, ...appends, positional]);
  // 0–2 compactions at random points, and always one at the end (after the last positional delete)
  return fc
    .tuple(
      prefix,
      fc.array(writeOp, { minLength: 1, maxLength: maxOps }),
      fc.array(fc.tuple(fc.nat(maxOps), partialCompactionArb), { maxLength: 2 }),
      partialCompactionArb,
    )
    .map(([start, writes, compactions, last]) => {
      const ops: Op[] = [...start, ...writes];
      for (const [at, spec] of [...compactions].sort((a, b) => b[0] - a[0]))
        ops.splice(Math.min(at, ops.length), 0, { kind: 'compact', spec });
      ops.push({ kind: 'compact', spec: last });
      return withUniqueV(ops);
    });
}
