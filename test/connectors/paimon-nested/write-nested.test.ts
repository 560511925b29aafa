/**
 * Nested columns and TIMESTAMP(7..9) in the Paimon data files floe writes: the Parquet schema is the one
 * Java's ParquetSchemaConverter produces (ids from SpecialFields' formulas, worked out by hand below: base
 * Integer.MAX_VALUE / 4 = 536870911, depth limit 1024), INT96 bytes are Java's timestampToInt96, stats
 * follow Java (no stats for nested columns, so dense stats leave them out), and values read back as written.
 * The same schemas are compared against files Java Paimon writes in integration/paimon-nested.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readParquetFooter } from '../../../connectors/formats/parquet/index.js';
import type { ParquetSchemaNode } from '../../../connectors/formats/parquet/types.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { createAggregator } from '../../../connectors/paimon/aggregates.js';
import { readDataFile } from '../../../connectors/paimon/data-file.js';
import type { PaimonSchema } from '../../../connectors/paimon/metadata.js';
import type { PaimonField, PaimonType } from '../../../connectors/paimon/types.js';
import { comparatorFor } from '../../../connectors/paimon/values.js';
import {
  AppendFileWriter,
  FILE_SOURCE_COMPACT,
  FileNamer,
  KeyValueFileWriter,
  dataWriteSettings,
} from '../../../connectors/paimon/write-data-file.js';
import { int96Bytes } from '../../../connectors/paimon/write-int96.js';
import { arrayElementFieldId, mapKeyFieldId, mapValueFieldId } from '../../../connectors/paimon/write-nested.js';
import { assertNestedLayoutsMatch } from '../../../connectors/paimon/nested-schema-check.js';
import type { PaimonTable } from '../../../connectors/paimon/table.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const INT: PaimonType = { root: 'INT', nullable: true };
const STR: PaimonType = { root: 'VARCHAR', nullable: true, length: 2147483647 };
const ts = (precision: number, nullable = true, ltz = false): PaimonType => ({
  root: ltz ? 'TIMESTAMP_LTZ' : 'TIMESTAMP',
  nullable,
  precision,
});

const FIELDS: PaimonField[] = [
  { id: 0, name: 'id', type: { root: 'INT', nullable: false } },
  { id: 1, name: 'ai', type: { root: 'ARRAY', nullable: true, element: INT } },
  { id: 2, name: 'm', type: { root: 'MAP', nullable: false, key: STR, value: INT } },
  {
    id: 3,
    name: 'aa',
    type: { root: 'ARRAY', nullable: true, element: { root: 'ARRAY', nullable: false, element: INT } },
  },
  {
    id: 4,
    name: 'r',
    type: {
      root: 'ROW',
      nullable: true,
      fields: [
        { id: 5, name: 'a', type: INT },
        { id: 6, name: 'b', type: { root: 'ARRAY', nullable: true, element: ts(3) } },
      ],
    },
  },
  { id: 7, name: 'ms', type: { root: 'MULTISET', nullable: true, element: STR } },
  { id: 8, name: 't9', type: ts(9) },
  { id: 9, name: 'l7', type: ts(7, true, true) },
  { id: 10, name: 'a9', type: { root: 'ARRAY', nullable: true, element: ts(9) } },
];

const schemaOf = (fields: PaimonField[], primaryKeys: string[] = []): PaimonSchema => ({
  version: 3,
  id: 0,
  fields,
  highestFieldId: 10,
  partitionKeys: [],
  primaryKeys,
  options: {},
  timeMillis: 0,
  file: 'schema-0',
});

interface Shape {
  name: string;
  id: number | null;
  rep: string;
  type?: string;
  logical?: string;
  children?: Shape[];
}
function shape(n: ParquetSchemaNode): Shape {
  const s: Shape = { name: n.name, id: n.fieldId ?? null, rep: n.repetition };
  if (n.physicalType) s.type = n.physicalType;
  if (n.logicalType) s.logical = JSON.stringify(n.logicalType);
  if (n.children) s.children = n.children.map(shape);
  return s;
}
const leaf = (name: string, id: number, rep: string, type: string, logical?: string): Shape =>
  logical ? { name, id, rep, type, logical } : { name, id, rep, type };
const list = (name: string, id: number, rep: string, element: Shape): Shape => ({
  name,
  id,
  rep,
  logical: JSON.stringify({ type: 'LIST' }),
  children: [{ name: 'list', id: null, rep: 'REPEATED', children: [element] }],
});

/** Java's layout for FIELDS, ids from SpecialFields by hand (base 536870911, 1024 per field id). */
const JAVA_LAYOUT: Shape[] = [
  leaf('id', 0, 'REQUIRED', 'INT32'),
  list('ai', 1, 'OPTIONAL', leaf('element', 536870911 + 1024 + 1, 'OPTIONAL', 'INT32')),
  {
    name: 'm',
    id: 2,
    rep: 'REQUIRED',
    logical: JSON.stringify({ type: 'MAP' }),
    children: [
      {
        name: 'key_value',
        id: null,
        rep: 'REPEATED',
        children: [
          // a map key is always required in Parquet
          leaf('key', 536870911 - 2048 - 1, 'REQUIRED', 'BYTE_ARRAY', JSON.stringify({ type: 'STRING' })),
          leaf('value', 536870911 + 2048 + 1, 'OPTIONAL', 'INT32'),
        ],
      },
    ],
  },
  // the inner list takes the element id of depth 1, its element the one of depth 2
  list(
    'aa',
    3,
    'OPTIONAL',
    list('element', 536870911 + 3072 + 1, 'REQUIRED', leaf('element', 536870911 + 3072 + 2, 'OPTIONAL', 'INT32')),
  ),
  {
    name: 'r',
    id: 4,
    rep: 'OPTIONAL',
    // ROW members keep their own ids; depth starts again at 0 under them
    children: [
      leaf('a', 5, 'OPTIONAL', 'INT32'),
      list(
        'b',
        6,
        'OPTIONAL',
        leaf(
          'element',
          536870911 + 6144 + 1,
          'OPTIONAL',
          'INT64',
          JSON.stringify({ type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' }),
        ),
      ),
    ],
  },
  {
    name: 'ms',
    id: 7,
    rep: 'OPTIONAL',
    logical: JSON.stringify({ type: 'MAP' }),
    children: [
      {
        name: 'key_value',
        id: null,
        rep: 'REPEATED',
        children: [
          leaf('key', 536870911 - 7168 - 1, 'REQUIRED', 'BYTE_ARRAY', JSON.stringify({ type: 'STRING' })),
          leaf('value', 536870911 + 7168 + 1, 'REQUIRED', 'INT32'), // the count: INT NOT NULL
        ],
      },
    ],
  },
  leaf('t9', 8, 'OPTIONAL', 'INT96'),
  leaf('l7', 9, 'OPTIONAL', 'INT96'),
  list('a9', 10, 'OPTIONAL', leaf('element', 536870911 + 10240 + 1, 'OPTIONAL', 'INT96')),
];

const ROWS: unknown[][] = [
  [
    1,
    [1, null, 3],
    new Map<unknown, unknown>([
      ['x', 1],
      ['y', null],
    ]),
    [[1, 2], [], [null]],
    { a: 5, b: [1_700_000_000_123n, null] },
    new Map<unknown, unknown>([['e', 2]]),
    -876_543_211n, // 1969-12-31T23:59:59.123456789
    1_709_208_000_015_485_863n,
    [0n, -1n, null],
  ],
  [2, null, new Map(), null, null, null, null, null, null],
  [3, [], new Map([['z', -3]]), [], { a: null, b: [] }, new Map(), 1n, -86_400_000_000_000_001n, []],
];

function target(dir: string, schema: PaimonSchema) {
  const settings = dataWriteSettings(schema, dir);
  return {
    table: dir,
    partitionDir: '',
    bucket: 0,
    schema,
    settings,
    storage: new FileIO(),
    targetFileSize: 1 << 30,
    bytesPerRow: 100,
    level: 5,
    fileSource: FILE_SOURCE_COMPACT,
    names: new FileNamer(settings),
  };
}

describe('Paimon nested + TIMESTAMP(7..9) data files', () => {
  it('SpecialFields ids (Java int arithmetic)', () => {
    expect(arrayElementFieldId(3, 1)).toBe(536873984); // seen in a Java Paimon 1.3.1 file
    expect(mapKeyFieldId(4, 1)).toBe(536866814);
    expect(mapValueFieldId(4, 1)).toBe(536875008);
    // wraps like a Java int
    expect(arrayElementFieldId(2_000_000, 1)).toBe((536870911 + 2_000_000 * 1024 + 1) | 0);
  });

  it("INT96 bytes are Java's timestampToInt96", () => {
    const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
    const expected = (nanosOfDay: bigint, julian: number) => {
      const b = Buffer.alloc(12);
      b.writeBigInt64LE(nanosOfDay, 0);
      b.writeInt32LE(julian, 8);
      return b.toString('hex');
    };
    // epoch: Julian day 2440588
    expect(hex(int96Bytes(0n))).toBe(expected(0n, 2440588));
    // 2024-02-29T12:00:00.015485863: 19782 days, 12 h + 15.485863 ms
    expect(hex(int96Bytes(1_709_208_000_015_485_863n))).toBe(expected(43_200_015_485_863n, 2440588 + 19782));
    // pre-1970: millis -877 (floor), nano-of-milli 456789; Java's truncating / and % keep day 0 and a
    // negative nanos-of-day: -877 ms * 1e6 + 456789
    expect(hex(int96Bytes(-876_543_211n))).toBe(expected(-876_543_211n, 2440588));
    // -1 day - 1 ns: millis -86400001 → day -1 (truncated), nanos-of-day -1 ms + 999999 ns
    expect(hex(int96Bytes(-86_400_000_000_001n))).toBe(expected(-1n, 2440587));
  });

  it('append file: Java Parquet layout, Java stats, values read back', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-nested-'));
    dirs.push(dir);
    const w = new AppendFileWriter(target(dir, schemaOf(FIELDS)));
    for (const [i, values] of ROWS.entries()) await w.write({ values, sequenceNumber: BigInt(i) });
    const [out] = await w.close();
    const bytes = new Uint8Array(readFileSync(out!.path));
    const footer = readParquetFooter(bytes, out!.path);
    expect(footer.schema.map(shape)).toEqual(JAVA_LAYOUT);
    // no Arrow schema hint: it would make Arrow readers see the INT96 columns as fixed binaries
    expect(footer.keyValueMetadata.has('ARROW:schema')).toBe(false);
    // Java: nested columns have no stats and dense stats leave them out; INT96 columns count nulls only
    expect(out!.meta.valueStatsCols).toEqual(['id', 't9', 'l7']);
    expect(out!.meta.valueStats!.nullCounts).toEqual([0n, 1n, 1n]);

    const cols = await readDataFile(new FileIO(), out!.path);
    const back = ROWS.map((_, r) => FIELDS.map((f) => cols.byId.get(f.id)![r]));
    // the scan reads ROW members by name and timestamps in the file's unit (TIMESTAMP(3) in an array: ms)
    expect(back).toEqual(ROWS);
  });

  it('primary-key file with a TIMESTAMP(9) key: _KEY_ column INT96, keys one nanosecond apart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-nested-'));
    dirs.push(dir);
    const fields: PaimonField[] = [
      { id: 0, name: 'k', type: ts(9, false) },
      { id: 1, name: 'r', type: FIELDS[4]!.type },
    ];
    const w = new KeyValueFileWriter(target(dir, schemaOf(fields, ['k'])));
    const keys = [-1n, 0n, 1n];
    for (const [i, k] of keys.entries())
      await w.write({ key: [k], sequenceNumber: BigInt(i), kind: 0, value: [k, { a: i, b: null }], level: 0 });
    const [out] = await w.close();
    const footer = readParquetFooter(new Uint8Array(readFileSync(out!.path)), out!.path);
    expect(footer.schema.map((n) => [n.name, n.fieldId, n.physicalType ?? 'group'])).toEqual([
      ['_KEY_k', 1073741823, 'INT96'],
      ['_SEQUENCE_NUMBER', 2147483646, 'INT64'],
      ['_VALUE_KIND', 2147483645, 'INT32'],
      ['k', 0, 'INT96'],
      ['r', 1, 'group'],
    ]);
    expect(out!.meta.valueStatsCols).toEqual(['k']);
    const cols = await readDataFile(new FileIO(), out!.path);
    expect(cols.byId.get(1073741823)).toEqual(keys);
    expect(cols.byId.get(1)).toEqual(keys.map((_, i) => ({ a: i, b: null })));
  });

  it('refuses a ROW value that lacks a member of the current type (nested schema evolution)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-nested-'));
    dirs.push(dir);
    const w = new AppendFileWriter(target(dir, schemaOf([FIELDS[0]!, FIELDS[4]!])));
    await w.write({ values: [1, { a: 1 }], sequenceNumber: 0n });
    await expect(w.close()).rejects.toThrow(/ROW field b is missing/);
  });

  it('refuses a nested primary key and min/max over nested values (Java refuses both)', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-nested-'));
    dirs.push(dir);
    expect(() => new KeyValueFileWriter(target(dir, schemaOf([FIELDS[1]!], ['ai'])))).toThrow(/nested type ARRAY/);
    expect(() => createAggregator('max', 'ai', FIELDS[1]!.type, {})).toThrow(/does not support type ARRAY/);
    expect(() => createAggregator('min', 'r', FIELDS[4]!.type, {})).toThrow(/does not support type ROW/);
    expect(createAggregator('last_non_null_value', 'ai', FIELDS[1]!.type, {}).agg([1], null)).toEqual([1]);
  });

  it('compares nested values member by member (changelog row-deduplicate must see a change)', () => {
    const m = comparatorFor(FIELDS[2]!.type);
    expect(m(new Map([['x', 1]]), new Map([['x', 1]]))).toBe(0);
    expect(m(new Map([['x', 1]]), new Map([['x', 2]]))).not.toBe(0);
    expect(m(new Map([['x', 1]]), new Map([['y', 1]]))).not.toBe(0);
    const r = comparatorFor(FIELDS[4]!.type);
    expect(r({ a: 1, b: [1n] }, { a: 1, b: [1n] })).toBe(0);
    expect(r({ a: 1, b: [1n] }, { a: 1, b: [2n] })).not.toBe(0);
    expect(r({ a: 1, b: null }, { a: 1, b: [] })).not.toBe(0);
    const a = comparatorFor(FIELDS[3]!.type);
    expect(a([[1], [2]], [[1], [2]])).toBe(0);
    expect(a([[1], [2]], [[1, 2]])).not.toBe(0);
  });

  it('refuses, before writing, files whose nested layout differs from the current schema (ROW member renamed)', () => {
    const r = FIELDS[4]!;
    const renamed: PaimonField = {
      ...r,
      type: {
        root: 'ROW',
        nullable: true,
        fields: [{ id: 5, name: 'a2', type: INT }, (r.type as { fields: PaimonField[] }).fields[1]!],
      },
    };
    const table = (fileSchemaId: number, old: PaimonField): PaimonTable =>
      ({
        location: '/t',
        schema: { ...schemaOf([FIELDS[0]!, renamed]), id: 1 },
        schemas: new Map([
          [0, schemaOf([FIELDS[0]!, old])],
          [1, { ...schemaOf([FIELDS[0]!, renamed]), id: 1 }],
        ]),
        files: [{ path: '/t/bucket-0/f', meta: { fileName: 'f', schemaId: fileSchemaId } }],
      }) as unknown as PaimonTable;
    expect(() => assertNestedLayoutsMatch(table(0, r))).toThrow(/data file f holds column r as ROW<a INT/);
    // files of the current schema, or an old schema with the same layout (nullability aside), are fine
    expect(() => assertNestedLayoutsMatch(table(1, r))).not.toThrow();
    expect(() =>
      assertNestedLayoutsMatch(table(0, { ...renamed, type: { ...renamed.type, nullable: false } })),
    ).not.toThrow();
  });
});
