/**
 * The Java-written tables of the read matrix, with awkward values in every type and the live rows each
 * must hold, tracked by hand from the scripted operations (independently of every reader).
 */
import type { CanonicalRow, IcebergOp, IcebergTableSpec, InputRow } from '../oracles/index.js';
import { RowModel } from '../iceberg-compaction/helpers.js';

/** Every primitive the matrix covers, with the Iceberg type names the canonical rules use. */
export const ALL_TYPES: Record<string, string> = {
  id: 'long',
  i: 'int',
  s: 'string',
  d: 'double',
  dec: 'decimal(38,10)',
  dt: 'date',
  ts: 'timestamp',
  tstz: 'timestamptz',
  b: 'boolean',
  bin: 'binary',
};

const cycle = <T>(xs: readonly T[], n: number): T => xs[n % xs.length]!;

/** Longs beyond 2^53 (and the extremes), unique per n. */
export function idOf(n: number): string {
  if (n === 1) return '-9223372036854775808';
  if (n === 2) return '9223372036854775807';
  return String(2n ** 53n + BigInt(n));
}

const STRINGS = [
  '日本語テキスト',
  'emoji 😀🎉',
  'ümlaut ß',
  '',
  null,
  'tab\tquote"back\\slash',
  'line\nbreak',
  'ascii',
];
const DOUBLES = ['NaN', '-0.0', 'Infinity', '-Infinity', null, 1.5e300, 5e-324, -2.25];
const DECIMALS = [
  '1234567890123456789012345678.1234567890',
  '-9999999999999999999999999999.9999999999',
  '0.0000000001',
  null,
  '-0.5000000000',
];
const DATES = ['1970-01-01', '1969-12-31', '2024-02-29', null, '1900-01-01'];
const TIMESTAMPS = ['1969-12-31T23:59:59.999999', '2024-02-29T12:34:56.123456', null, '2000-01-01T00:00:00.000001'];
const TIMESTAMPTZ = ['2024-01-01T01:02:03.000001+05:30', '1970-01-01T00:00:00.000000+00:00', null];
const BINARIES = ['ff00fe80', '', 'c328', null, 'e282', '00'];
export const REGIONS = ['eu', 'us', 'ap'];

/**
 * Row n of the all-types tables. `version` (upserts) changes only columns no partition derives from, so
 * an upserted row stays in its partition (Flink-style upserts need that). Every column is null somewhere.
 */
export function row(n: number, version = 0, withRegion = false): InputRow {
  const k = n + version * 3;
  const r: InputRow = {
    id: idOf(n),
    i: cycle([null, -2147483648, 2147483647, 0, n * 37 - 500 + version], k),
    s: cycle(STRINGS, n),
    d: cycle(DOUBLES, k),
    dec: cycle(DECIMALS, k),
    dt: cycle(DATES, k),
    ts: cycle(TIMESTAMPS, n),
    tstz: cycle(TIMESTAMPTZ, k),
    b: cycle([true, false, null], k),
    bin: cycle(BINARIES, k),
  };
  if (withRegion) r.region = cycle(REGIONS, n);
  return r;
}
export const rows = (from: number, count: number, version = 0, withRegion = false): InputRow[] =>
  Array.from({ length: count }, (_, j) => row(from + j, version, withRegion));

export interface JavaTable {
  name: string;
  spec: IcebergTableSpec;
  /** Column types of the current schema. */
  types: Record<string, string>;
  /** Time travel: the snapshot of ops[op] (an op that commits a snapshot) and its schema's types. */
  travel: { op: number; types: Record<string, string> };
  /** Live rows after every op, by hand; null where not modelled. */
  expected: (CanonicalRow[] | null)[];
  /** Reference engines known to return other rows than Java (and the spec) here: a difference skips loudly. */
  divergences?: Partial<Record<'duckdb' | 'pyiceberg', string>>;
}

/** Hand-tracked live rows after each op (ops: append, upsert, delete-eq, delete-pos only). */
function modelOps(types: Record<string, string>, ops: IcebergOp[], keyFields: string[]): CanonicalRow[][] {
  const m = new RowModel(types);
  return ops.map((op) => {
    if (op.op === 'append') m.append(op.rows);
    else if (op.op === 'upsert') m.upsert(op.rows, op.fields ?? keyFields);
    else if (op.op === 'delete-eq') m.deleteKeys(op.rows, op.fields ?? keyFields);
    else if (op.op === 'delete-pos') m.deleteWhere(Array.isArray(op.where) ? op.where : [op.where]);
    else throw new Error(`op ${op.op} is not modelled`);
    return m.live();
  });
}

const schemaOf = (types: Record<string, string>, required: string[]) =>
  Object.entries(types).map(([name, type]) => ({ name, type, required: required.includes(name) }));

// ------------------------------------------------------------------ v1: many small files

function v1SmallFiles(): JavaTable {
  const ops: IcebergOp[] = Array.from({ length: 16 }, (_, j): IcebergOp => ({
    op: 'append',
    rows: rows(j * 3 + 1, 3),
  }));
  return {
    name: 'v1 unpartitioned, 16 small appends, all types',
    spec: { formatVersion: 1, schema: schemaOf(ALL_TYPES, ['id']), ops },
    types: ALL_TYPES,
    travel: { op: 5, types: ALL_TYPES },
    expected: modelOps(ALL_TYPES, ops, ['id']),
  };
}

// ------------------------------------------------------------------ v2: partitioned, deletes

const REGION_TYPES = { ...ALL_TYPES, region: 'string' };
const full = (n: number, v = 0) => row(n, v, true);

function v2PartitionedDeletes(): JavaTable {
  const ops: IcebergOp[] = [
    { op: 'append', rows: rows(1, 10, 0, true) },
    { op: 'append', rows: rows(11, 10, 0, true) },
    { op: 'upsert', rows: [full(2, 1), full(13, 1)], fields: ['id'] },
    { op: 'delete-pos', where: [{ id: idOf(5) }, { id: idOf(15) }] },
    // key rows carry the partition source columns: the delete file lands in the row's partition
    { op: 'delete-eq', rows: [full(7), full(18)], fields: ['id'] },
    { op: 'upsert', rows: [full(2, 2), full(20, 1)], fields: ['id'] },
    // the upserted version of 13 lives in the upsert's data file: a position delete there
    { op: 'delete-pos', where: { id: idOf(13) } },
    { op: 'append', rows: rows(21, 6, 0, true) },
  ];
  return {
    name: 'v2 partitioned (identity, day, bucket, truncate) with position and equality deletes',
    spec: {
      formatVersion: 2,
      schema: schemaOf(REGION_TYPES, ['id', 'region']),
      partitionSpec: [
        { source: 'region' },
        { source: 'ts', transform: 'day' },
        { source: 'id', transform: 'bucket[3]' },
        { source: 's', transform: 'truncate[2]' },
      ],
      ops,
    },
    types: REGION_TYPES,
    travel: { op: 3, types: REGION_TYPES },
    expected: modelOps(REGION_TYPES, ops, ['id']),
  };
}

// ------------------------------------------------------------------ v3: DVs, row lineage, defaults

export const V3_DEFAULTS = { note: 'n/a ✓', big: '9007199254740993' };

function v3DeletionVectors(): JavaTable {
  const before: IcebergOp[] = [
    { op: 'append', rows: rows(1, 9, 0, true) },
    { op: 'append', rows: rows(10, 9, 0, true) },
    { op: 'delete-pos', where: [{ id: idOf(2) }, { id: idOf(11) }] },
    // 5 shares 2's data file (same region): the new DV must merge with the existing one
    { op: 'delete-pos', where: { id: idOf(5) } },
    { op: 'upsert', rows: [full(4, 1), full(12, 1)], fields: ['id'] },
  ];
  const evolve: IcebergOp = {
    op: 'evolve-schema',
    changes: [
      { action: 'add', name: 'note', type: 'string', default: V3_DEFAULTS.note },
      { action: 'add', name: 'big', type: 'long', default: V3_DEFAULTS.big },
    ],
  };
  const after: IcebergOp[] = [
    {
      op: 'append',
      rows: [
        { ...full(30), note: 'explicit', big: '-1' },
        full(31) /* defaults fill in */,
        { ...full(32), note: null, big: null },
      ],
    },
    { op: 'delete-pos', where: [{ id: idOf(9) }, { id: idOf(30) }] },
  ];
  const types = { ...REGION_TYPES, note: 'string', big: 'long' };
  const beforeRows = modelOps(REGION_TYPES, before, ['id']);
  // After the schema change, old rows read the initial default; Java fills a column absent from an
  // input row with the write default (the same value here).
  const m = new RowModel(types);
  m.append(beforeRows.at(-1)!.map((r) => ({ ...r, ...V3_DEFAULTS })));
  const afterRows: CanonicalRow[][] = [m.live()];
  m.append([
    { ...full(30), note: 'explicit', big: '-1' },
    { ...full(31), ...V3_DEFAULTS },
    { ...full(32), note: null, big: null },
  ]);
  afterRows.push(m.live());
  m.deleteWhere([{ id: idOf(9) }, { id: idOf(30) }]);
  afterRows.push(m.live());
  return {
    name: 'v3 partitioned with deletion vectors, equality deletes, row lineage and initial defaults',
    spec: {
      formatVersion: 3,
      schema: schemaOf(REGION_TYPES, ['id', 'region']),
      partitionSpec: [{ source: 'region' }],
      ops: [...before, evolve, ...after],
    },
    types,
    travel: { op: before.length - 1, types: REGION_TYPES },
    expected: [...beforeRows, ...afterRows],
  };
}

// ------------------------------------------------------------------ schema evolution

function v2SchemaEvolution(): JavaTable {
  const t0 = { id: 'long', a: 'int', b: 'string', c: 'double', z: 'string' };
  const first = [
    { id: idOf(101), a: 2147483647, b: 'old-1', c: 1.5, z: 'keep' },
    { id: idOf(102), a: -2147483648, b: null, c: 'NaN', z: null },
    { id: idOf(103), a: null, b: 'old-3 ✓', c: '-0.0', z: 'z3' },
  ];
  const ops: IcebergOp[] = [
    { op: 'append', rows: first },
    {
      op: 'evolve-schema',
      changes: [
        { action: 'add', name: 'extra', type: 'string' },
        { action: 'rename', from: 'b', to: 'name' },
        { action: 'widen', name: 'a', type: 'long' },
        { action: 'drop', name: 'c' },
      ],
    },
    { op: 'append', rows: [{ id: idOf(104), a: '9007199254740993', name: 'new-4', extra: 'x', z: 'z4' }] },
    { op: 'delete-pos', where: { id: idOf(101) } },
    // a new column reusing a dropped column's name gets a new field id: old files must read null for it
    {
      op: 'evolve-schema',
      changes: [
        { action: 'add', name: 'c', type: 'double' },
        { action: 'rename', from: 'z', to: 'zz' },
      ],
    },
    { op: 'append', rows: [{ id: idOf(105), a: '-9007199254740993', name: 'new-5', extra: null, zz: 'z5', c: 2.5 }] },
  ];
  const types = { id: 'long', a: 'long', name: 'string', zz: 'string', extra: 'string', c: 'double' };
  const m = new RowModel(types);
  m.append(first.slice(1).map((r) => ({ id: r.id, a: r.a, name: r.b, zz: r.z, extra: null, c: null })));
  m.append([
    { id: idOf(104), a: '9007199254740993', name: 'new-4', extra: 'x', zz: 'z4', c: null },
    { id: idOf(105), a: '-9007199254740993', name: 'new-5', extra: null, zz: 'z5', c: 2.5 },
  ]);
  const t0Model = new RowModel(t0);
  t0Model.append(first);
  return {
    name: 'v2 schema evolution (add, rename, widen int to long, drop, re-add a dropped name)',
    spec: { formatVersion: 2, schema: schemaOf(t0, ['id']), ops },
    types,
    travel: { op: 0, types: t0 },
    expected: [t0Model.live(), null, null, null, null, m.live()],
  };
}

// ------------------------------------------------------------------ partition evolution

function v2PartitionEvolution(): JavaTable {
  const types = { id: 'long', cat: 'string', ts: 'timestamp', v: 'int' };
  const r = (n: number): InputRow => ({
    id: idOf(n),
    cat: cycle(['α', 'b', null], n),
    ts: cycle(['2024-03-01T10:00:00.000000', '2024-03-02T23:59:59.999999', '1969-12-31T00:00:00.000000'], n),
    v: n,
  });
  const span = (from: number, count: number) => Array.from({ length: count }, (_, j) => r(from + j));
  const ops: IcebergOp[] = [
    { op: 'append', rows: span(201, 6) },
    { op: 'evolve-spec', add: [{ source: 'id', transform: 'bucket[2]' }], remove: ['cat'] },
    { op: 'append', rows: span(211, 6) },
    // one delete file per (spec, partition): an old-spec file and a new-spec file
    { op: 'delete-pos', where: [{ id: idOf(202) }, { id: idOf(212) }] },
    { op: 'evolve-spec', add: [{ source: 'ts', transform: 'day' }] },
    { op: 'append', rows: span(221, 4) },
    // written under the current spec: applies to current-spec files of that partition only, so the
    // spec-0 row 203 survives its key's delete
    { op: 'delete-eq', rows: [r(222), r(223), r(203)], fields: ['id'] },
  ];
  const m = new RowModel(types);
  m.append(span(201, 6));
  const atFirst = m.live();
  m.append(span(211, 6));
  m.deleteWhere([{ id: idOf(202) }, { id: idOf(212) }]);
  const afterPosDeletes = m.live();
  m.append(span(221, 4));
  m.deleteKeys([r(222), r(223)], ['id']);
  return {
    name: 'v2 partition evolution (identity → bucket → bucket + day; old files keep their spec)',
    spec: { formatVersion: 2, schema: schemaOf(types, ['id']), partitionSpec: [{ source: 'cat' }], ops },
    types,
    travel: { op: 3, types },
    expected: [atFirst, null, null, afterPosDeletes, null, null, m.live()],
  };
}

// ------------------------------------------------------------------ equality keys on awkward values

/**
 * Equality deletes keyed on binary (bytes that are not UTF-8: a reader that decodes them as text collapses
 * ff and fe into U+FFFD and over-deletes) and on double (Java compares with Double.compare: NaN matches
 * NaN, -0.0 does not match 0.0).
 */
function v2AwkwardEqualityKeys(): JavaTable {
  const types = { id: 'long', k: 'binary', x: 'double' };
  const first = [
    { id: '1', k: 'ff', x: 0 },
    { id: '2', k: 'fe', x: '-0.0' },
    { id: '3', k: 'c328', x: 'NaN' },
    { id: '4', k: 'c329', x: 1 },
    { id: '5', k: null, x: null },
  ];
  const second = [
    { id: '6', k: '01', x: '-0.0' },
    { id: '7', k: '02', x: 0 },
    { id: '8', k: '03', x: 'NaN' },
  ];
  const ops: IcebergOp[] = [
    { op: 'append', rows: first },
    { op: 'delete-eq', rows: [{ k: 'ff' }, { k: 'c328' }], fields: ['k'] },
    { op: 'append', rows: second },
    { op: 'delete-eq', rows: [{ x: '-0.0' }, { x: 'NaN' }], fields: ['x'] },
  ];
  const m = new RowModel(types);
  m.append(first);
  m.deleteWhere([{ id: '1' }, { id: '3' }]);
  const afterBinary = m.live();
  m.append(second);
  // by Double.compare: -0.0 matches rows 2 and 6 only (not 7's 0.0), NaN matches 8 (3 is gone already)
  m.deleteWhere([{ id: '2' }, { id: '6' }, { id: '8' }]);
  return {
    name: 'v2 equality deletes keyed on non-UTF-8 binary and on NaN and -0.0',
    spec: { formatVersion: 2, schema: schemaOf(types, ['id']), ops },
    types,
    travel: { op: 1, types },
    expected: [null, afterBinary, null, m.live()],
    divergences: {
      duckdb:
        'DuckDB 1.5 iceberg extension applies these equality deletes differently from Java: it also drops the row whose key is null ' +
        'and the 0.0 row for a -0.0 key',
    },
  };
}

export function javaTables(): JavaTable[] {
  return [
    v1SmallFiles(),
    v2PartitionedDeletes(),
    v3DeletionVectors(),
    v2SchemaEvolution(),
    v2PartitionEvolution(),
    v2AwkwardEqualityKeys(),
  ];
}
