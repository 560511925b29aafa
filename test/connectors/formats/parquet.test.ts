import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import { parquetMetadata } from 'hyparquet';
import { FloeError } from '../../../util/errors.js';
import type { Field, FieldType } from '../../../model/table.js';
import {
  arrowSchemaForIceberg,
  castToSchema,
  fieldIdOf,
  icebergMetricsFromFooter,
  iterateRowGroups,
  readParquetFooter,
  readParquetTable,
  rowsFromArrow,
  tableFromRows,
  writeParquet,
  writeRolling,
  ParquetWriter,
} from '../../../connectors/formats/parquet/index.js';

const p = (name: string, extra: Partial<Extract<FieldType, { kind: 'primitive' }>> = {}): FieldType =>
  ({ kind: 'primitive', name, ...extra }) as FieldType;
const f = (id: number, name: string, type: FieldType, required = false, more: Partial<Field> = {}): Field => ({
  id,
  name,
  type,
  required,
  ...more,
});

const ALL_FIELDS: Field[] = [
  f(1, 'b', p('boolean')),
  f(2, 'i', p('int')),
  f(3, 'l', p('long'), true),
  f(4, 'fl', p('float')),
  f(5, 'db', p('double')),
  f(6, 'd38', p('decimal', { precision: 38, scale: 10 })),
  f(7, 'd9', p('decimal', { precision: 9, scale: 2 })),
  f(8, 'dt', p('date')),
  f(9, 'tm', p('time')),
  f(10, 'ts', p('timestamp')),
  f(11, 'tstz', p('timestamptz')),
  f(12, 'tsns', p('timestamp_ns')),
  f(13, 'tstzns', p('timestamptz_ns')),
  f(14, 's', p('string')),
  f(15, 'u', p('uuid')),
  f(16, 'fx', p('fixed', { length: 4 })),
  f(17, 'bin', p('binary')),
  f(18, 'st', { kind: 'struct', fields: [f(19, 'x', p('int')), f(20, 'y', p('string'))] }),
  f(21, 'ls', { kind: 'list', elementId: 22, element: p('long'), elementRequired: false }),
  f(23, 'mp', { kind: 'map', keyId: 24, key: p('string'), valueId: 25, value: p('double'), valueRequired: false }),
];

// Values chosen by hand to hit the edges: 38-digit decimals, longs beyond 2^53, sub-millisecond timestamps.
const ROWS: Record<string, unknown>[] = [
  {
    b: true,
    i: -2147483648,
    l: 9007199254740993n,
    fl: 1.5,
    db: -0.1,
    d38: '1234567890123456789012345678.9012345678',
    d9: '-1234567.89',
    dt: 19000,
    tm: 86399999999n,
    ts: 1700000000123456n,
    tstz: -1n,
    tsns: 1700000000123456789n,
    tstzns: -123456789n,
    s: 'héllo wörld ✓',
    u: '0123abcd-4567-89ef-0123-456789abcdef',
    fx: new Uint8Array([0, 1, 2, 255]),
    bin: new Uint8Array([9, 8, 7]),
    st: { x: 7, y: 'seven' },
    ls: [1n, null, -(2n ** 63n)],
    mp: new Map<string, number | null>([
      ['a', 1.25],
      ['b', null],
    ]),
  },
  {
    b: false,
    i: 2147483647,
    l: -(2n ** 63n),
    fl: null,
    db: null,
    d38: '-9999999999999999999999999999.9999999999',
    d9: '0.00',
    dt: -719162,
    tm: 0n,
    ts: null,
    tstz: 253402300799999999n,
    tsns: null,
    tstzns: null,
    s: '',
    u: null,
    fx: null,
    bin: new Uint8Array(0),
    st: null,
    ls: [],
    mp: new Map(),
  },
  {
    b: null,
    i: null,
    l: 2n ** 63n - 1n,
    fl: null,
    db: null,
    d38: null,
    d9: null,
    dt: null,
    tm: null,
    ts: null,
    tstz: null,
    tsns: null,
    tstzns: null,
    s: null,
    u: null,
    fx: null,
    bin: null,
    st: { x: null, y: null },
    ls: null,
    mp: null,
  },
];

const ALLOWED_ENCODINGS = new Set(['PLAIN', 'RLE', 'RLE_DICTIONARY', 'PLAIN_DICTIONARY']);

describe('write → footer → read round trip', () => {
  it('keeps every Iceberg type exact, with field ids, zstd, v1 pages and v1-safe encodings', async () => {
    const schema = arrowSchemaForIceberg(ALL_FIELDS);
    const written = await writeParquet(tableFromRows(schema, ROWS), 'mem://all-types.parquet');
    expect(written.rowCount).toBe(3);

    // Footer checked with hyparquet directly (independent of our footer decoding).
    const meta = parquetMetadata(written.bytes);
    const ids = meta.schema
      .slice(1)
      .map((e) => e.field_id)
      .filter((x) => x !== undefined);
    expect(new Set(ids)).toEqual(new Set([...Array(25).keys()].map((i) => i + 1)));
    expect(meta.created_by?.startsWith('floe')).toBe(true);
    for (const rg of meta.row_groups) {
      for (const c of rg.columns) {
        expect(c.meta_data!.codec).toBe('ZSTD');
        for (const e of c.meta_data!.encodings) expect(ALLOWED_ENCODINGS.has(e)).toBe(true);
        for (const s of c.meta_data!.encoding_stats ?? [])
          expect(['DATA_PAGE', 'DICTIONARY_PAGE']).toContain(s.page_type);
      }
    }
    // Logical types as Iceberg's spec maps them.
    const el = (name: string) => meta.schema.find((e) => e.name === name)!;
    expect(el('d38').logical_type).toEqual({ type: 'DECIMAL', precision: 38, scale: 10 });
    expect(el('ts').logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MICROS' });
    expect(el('tstz').logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' });
    expect(el('tsns').logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'NANOS' });
    expect(el('tm').logical_type).toEqual({ type: 'TIME', isAdjustedToUTC: false, unit: 'MICROS' });
    expect(el('u').type).toBe('FIXED_LEN_BYTE_ARRAY');
    expect(el('u').type_length).toBe(16);

    const table = await readParquetTable(written.bytes, 'mem://all-types.parquet');
    expect(table.schema.fields.map(fieldIdOf)).toEqual(ALL_FIELDS.map((x) => x.id));
    const back = [...rowsFromArrow(table, ALL_FIELDS)];
    expect(back).toEqual(ROWS);
  });

  it('projects by field id in the requested order, skipping ids the file lacks', async () => {
    const fields = [f(1, 'a', p('long')), f(2, 'b', p('string')), f(3, 'c', p('int'))];
    const w = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), [{ a: 1n, b: 'x', c: 3 }]), 'mem://proj');
    const t = await readParquetTable(w.bytes, 'mem://proj', { fieldIds: [3, 99, 1] });
    expect(t.schema.fields.map(fieldIdOf)).toEqual([3, 1]);
    expect(t.numRows).toBe(1);
    const none = await readParquetTable(w.bytes, 'mem://proj', { fieldIds: [42] });
    expect(none.numRows).toBe(1);
    expect(none.numCols).toBe(0);
  });

  it('writes row groups by size and iterates them one at a time', async () => {
    const fields = [f(1, 'a', p('long'), true)];
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ a: BigInt(i) }));
    // 8 bytes/row uncompressed → 8,000-byte target ⇒ 1,000-row groups.
    const w = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), rows), 'mem://rg', {
      rowGroupBytes: 8_000,
    });
    expect(w.footer.rowGroups.map((r) => r.numRows)).toEqual(Array(10).fill(1000));
    let seen = 0n;
    let count = 0;
    for await (const { index, table } of iterateRowGroups(w.bytes, 'mem://rg', { rowGroups: [2, 7] })) {
      const vals = [...rowsFromArrow(table, fields)].map((r) => r.a as bigint);
      expect(vals[0]).toBe(BigInt(index * 1000));
      seen += vals.reduce((s, v) => s + v, 0n);
      count += vals.length;
    }
    expect(count).toBe(2000);
    // sum of 2000..2999 and 7000..7999
    expect(seen).toBe(BigInt((2000 + 2999) * 500 + (7000 + 7999) * 500));
  });

  it('supports snappy, gzip and uncompressed codecs', async () => {
    const fields = [f(1, 's', p('string'))];
    for (const [codec, name] of [
      ['snappy', 'SNAPPY'],
      ['gzip', 'GZIP'],
      ['uncompressed', 'UNCOMPRESSED'],
    ] as const) {
      const w = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), [{ s: 'a' }, { s: 'b' }]), 'mem://c', {
        codec,
      });
      expect(w.footer.rowGroups[0]!.columns[0]!.codec).toBe(name);
      expect([...rowsFromArrow(await readParquetTable(w.bytes, 'mem://c'), fields)]).toEqual([{ s: 'a' }, { s: 'b' }]);
    }
  });

  it('streams many batches into one file through ParquetWriter', async () => {
    const fields = [f(1, 'a', p('long'), true), f(2, 's', p('string'))];
    const schema = arrowSchemaForIceberg(fields);
    const w = new ParquetWriter(schema, 'mem://stream', { maxRowGroupRows: 2500 });
    for (let b = 0; b < 5; b++) {
      await w.write(
        tableFromRows(
          schema,
          Array.from({ length: 1000 }, (_, i) => ({ a: BigInt(b * 1000 + i), s: `r${b * 1000 + i}` })),
        ),
      );
    }
    const out = await w.finish();
    expect(out.footer.rowGroups.map((r) => r.numRows)).toEqual([2500, 2500]);
    const rows = [...rowsFromArrow(await readParquetTable(out.bytes, 'mem://stream'), fields)];
    expect(rows[4321]).toEqual({ a: 4321n, s: 'r4321' });
  });

  it('writes an empty file that reads back with zero rows', async () => {
    const fields = [f(1, 'a', p('long'))];
    const out = await new ParquetWriter(arrowSchemaForIceberg(fields), 'mem://empty').finish();
    expect(out.footer.numRows).toBe(0);
    expect(out.footer.leaves[0]!.fieldId).toBe(1);
  });

  it('rolls output files near the target size', async () => {
    const fields = [f(1, 'a', p('long'), true), f(2, 's', p('string'))];
    const schema = arrowSchemaForIceberg(fields);
    // Random-ish strings compress poorly, so sizes are meaningful.
    let seed = 42;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
    const batches = Array.from({ length: 20 }, (_, b) =>
      tableFromRows(
        schema,
        Array.from({ length: 2000 }, (_, i) => ({
          a: BigInt(b * 2000 + i),
          s: rnd().toString(36) + rnd().toString(36),
        })),
      ),
    );
    const target = 200_000;
    const files = await writeRolling(batches, target, { maxRowGroupRows: 5000 });
    expect(files.length).toBeGreaterThan(1);
    expect(files.reduce((s, x) => s + x.rowCount, 0)).toBe(40_000);
    for (const file of files.slice(0, -1)) {
      expect(file.bytes.length).toBeGreaterThan(target * 0.5);
      expect(file.bytes.length).toBeLessThan(target * 1.5);
    }
    // Rows stay in order across files.
    const first = [...rowsFromArrow(await readParquetTable(files[1]!.bytes, 'f1'), fields)][0]!.a as bigint;
    expect(first).toBe(BigInt(files[0]!.rowCount));
  });
});

describe('corrupt input', () => {
  it('names the file for truncated bytes, bad magic and tiny inputs', async () => {
    const fields = [f(1, 'a', p('long'))];
    const w = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), [{ a: 1n }]), 'x');
    const cases: [Uint8Array, string][] = [
      [w.bytes.subarray(0, w.bytes.length - 10), 's3://b/t/data/truncated.parquet'],
      [new TextEncoder().encode('not a parquet file at all, really'), 's3://b/t/data/text.parquet'],
      [new Uint8Array(3), 's3://b/t/data/tiny.parquet'],
    ];
    for (const [bytes, name] of cases) {
      let err: unknown;
      try {
        readParquetFooter(bytes, name);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(FloeError);
      expect((err as FloeError).kind).toBe('Corrupt');
      expect((err as FloeError).message).toContain(name);
      await expect(readParquetTable(bytes, name)).rejects.toMatchObject({
        kind: 'Corrupt',
        message: expect.stringContaining(name),
      });
    }
    // A footer claiming more bytes than the file has.
    const bad = w.bytes.slice();
    new DataView(bad.buffer).setUint32(bad.length - 8, bad.length * 2, true);
    expect(() => readParquetFooter(bad, 'bad-len.parquet')).toThrow(/bad-len\.parquet/);
  });
});

describe('castToSchema', () => {
  it("reorders, renames, fills added columns and promotes int→long, float→double, decimal(p)→decimal(p')", async () => {
    const old: Field[] = [
      f(1, 'id', p('int'), true),
      f(2, 'price', p('decimal', { precision: 9, scale: 2 })),
      f(3, 'ratio', p('float')),
      f(4, 'name', p('string')),
      f(5, 'nested', { kind: 'struct', fields: [f(6, 'n', p('int'))] }),
    ];
    const w = await writeParquet(
      tableFromRows(arrowSchemaForIceberg(old), [
        { id: 1, price: '12.34', ratio: 0.5, name: 'a', nested: { n: 1 } },
        { id: -2, price: null, ratio: null, name: null, nested: null },
      ]),
      'old.parquet',
    );
    const read = await readParquetTable(w.bytes, 'old.parquet');
    const current: Field[] = [
      f(4, 'label', p('string')), // renamed, moved first
      f(1, 'id', p('long'), true),
      f(2, 'price', p('decimal', { precision: 20, scale: 2 })),
      f(3, 'ratio', p('double')),
      f(7, 'added', p('long')),
      f(8, 'with_default', p('long'), false, { initialDefault: -1 }),
      f(9, 'day', p('date'), false, { initialDefault: '2024-03-20' }),
      f(5, 'nested', {
        kind: 'struct',
        fields: [f(6, 'n', p('long')), f(10, 'm', p('string'), false, { initialDefault: 'z' })],
      }),
    ];
    const cast = castToSchema(read, current, 'old.parquet');
    expect(cast.schema.fields.map((x) => x.name)).toEqual([
      'label',
      'id',
      'price',
      'ratio',
      'added',
      'with_default',
      'day',
      'nested',
    ]);
    const rows = [...rowsFromArrow(cast, current)];
    // 2024-03-20 is 19802 days after 1970-01-01 (computed: (Date.UTC(2024,2,20))/86400000).
    expect(rows).toEqual([
      {
        label: 'a',
        id: 1n,
        price: '12.34',
        ratio: 0.5,
        added: null,
        with_default: -1n,
        day: 19802,
        nested: { n: 1n, m: 'z' },
      },
      { label: null, id: -2n, price: null, ratio: null, added: null, with_default: -1n, day: 19802, nested: null },
    ]);
    // The cast table is writable as-is and keeps the new ids.
    const again = await writeParquet(cast, 'new.parquet');
    expect(again.footer.leaves.map((x) => x.fieldId)).toEqual([4, 1, 2, 3, 7, 8, 9, 6, 10]);
  });

  it('refuses narrowing and type changes, and missing required columns', async () => {
    const w = await writeParquet(
      tableFromRows(arrowSchemaForIceberg([f(1, 'a', p('long'))]), [{ a: 1n }]),
      'n.parquet',
    );
    const t = await readParquetTable(w.bytes, 'n.parquet');
    expect(() => castToSchema(t, [f(1, 'a', p('int'))], 'n.parquet')).toThrow(
      expect.objectContaining({ kind: 'Unsupported' }),
    );
    expect(() => castToSchema(t, [f(1, 'a', p('string'))], 'n.parquet')).toThrow(/n\.parquet/);
    expect(() => castToSchema(t, [f(2, 'b', p('long'), true)], 'n.parquet')).toThrow(/required/);
  });
});

describe('icebergMetricsFromFooter', () => {
  const fields: Field[] = [
    f(1, 'id', p('long'), true),
    f(2, 'name', p('string')),
    f(3, 'score', p('double')),
    f(4, 'tags', { kind: 'list', elementId: 5, element: p('string'), elementRequired: false }),
    f(6, 'amount', p('decimal', { precision: 10, scale: 2 })),
    f(7, 'info', { kind: 'struct', fields: [f(8, 'code', p('int'))] }),
  ];
  const rows = [
    { id: 5n, name: 'short', score: 1.5, tags: ['x', 'y'], amount: '10.50', info: { code: 3 } },
    { id: -3n, name: 'a string that is much longer than sixteen', score: NaN, tags: null, amount: '-2.25', info: null },
    { id: 9n, name: null, score: null, tags: [], amount: null, info: { code: -1 } },
    { id: 0n, name: 'zzzzzzzzzzzzzzzzzzzz', score: -0.0, tags: ['w'], amount: '99999999.99', info: { code: null } },
  ];

  it('matches hand-computed counts, NaN counts and truncated bounds', async () => {
    const w = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), rows), 'm.parquet');
    const m = icebergMetricsFromFooter(w.footer, fields, { fieldMetrics: w.fieldMetrics });
    expect(m.recordCount).toBe(4);
    expect(m.valueCounts.get(1)).toBe(4n);
    expect(m.nullValueCounts.get(1)).toBe(0n);
    expect(m.nullValueCounts.get(2)).toBe(1n);
    expect(m.nullValueCounts.get(3)).toBe(1n);
    expect(m.nanValueCounts.get(3)).toBe(1n);
    expect(m.nullValueCounts.get(6)).toBe(1n);
    expect(m.nullValueCounts.get(8)).toBe(2n); // null struct + null code
    // list element leaf: Java 1.10's ParquetMetrics keeps only the column size inside lists and maps
    expect(m.columnSizes.get(5)).toBeGreaterThan(0n);
    expect(m.valueCounts.has(5)).toBe(false);
    expect(m.nullValueCounts.has(5)).toBe(false);
    expect(m.lowerBounds.get(1)).toBe(-3n);
    expect(m.upperBounds.get(1)).toBe(9n);
    // strings: min 'a string that is much…' truncated to 16 code points; max 'zzzz…' (20 z) → 15 z + '{'
    expect(m.lowerBounds.get(2)).toBe('a string that is');
    expect(m.upperBounds.get(2)).toBe('zzzzzzzzzzzzzzz{');
    // doubles: NaN excluded, -0.0 is the minimum
    expect(Object.is(m.lowerBounds.get(3), -0)).toBe(true);
    expect(m.upperBounds.get(3)).toBe(1.5);
    expect(m.lowerBounds.get(6)).toBe('-2.25');
    expect(m.upperBounds.get(6)).toBe('99999999.99');
    expect(m.lowerBounds.get(8)).toBe(-1);
    expect(m.upperBounds.get(8)).toBe(3);
    // no bounds inside lists
    expect(m.lowerBounds.has(5)).toBe(false);
    const sizes = w.footer.rowGroups[0]!.columns.find((c) => c.fieldId === 1)!.totalCompressedSize;
    expect(m.columnSizes.get(1)).toBe(BigInt(sizes));
    expect(m.splitOffsets).toEqual([4]);
  });

  it('honours none / counts / full per column', async () => {
    const w = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), rows), 'm.parquet');
    const m = icebergMetricsFromFooter(w.footer, fields, {
      mode: 'counts',
      perColumn: new Map([
        [1, 'none'],
        [2, 'full'],
      ]),
      fieldMetrics: w.fieldMetrics,
    });
    expect(m.valueCounts.has(1)).toBe(false);
    expect(m.columnSizes.has(1)).toBe(false);
    expect(m.upperBounds.get(2)).toBe('zzzzzzzzzzzzzzzzzzzz');
    expect(m.lowerBounds.get(2)).toBe('a string that is much longer than sixteen');
    expect(m.nullValueCounts.get(3)).toBe(1n);
    expect(m.nanValueCounts.get(3)).toBe(1n);
    expect(m.lowerBounds.has(3)).toBe(false);
    expect(m.lowerBounds.has(6)).toBe(false);
  });
});

describe('arrowSchemaForIceberg', () => {
  it('puts PARQUET:field_id on nested fields and maps types as specified', () => {
    const s = arrowSchemaForIceberg(ALL_FIELDS);
    const byName = new Map(s.fields.map((x) => [x.name, x]));
    expect(String(byName.get('d38')!.type)).toBe('Decimal[38e+10]');
    expect(byName.get('tstz')!.type).toBeInstanceOf(arrow.TimestampMicrosecond);
    expect((byName.get('tstz')!.type as arrow.Timestamp).timezone).toBe('UTC');
    expect((byName.get('ts')!.type as arrow.Timestamp).timezone ?? null).toBeNull();
    expect((byName.get('u')!.type as arrow.FixedSizeBinary).byteWidth).toBe(16);
    const list = byName.get('ls')!.type as arrow.List;
    expect(fieldIdOf(list.children[0]!)).toBe(22);
    const map = byName.get('mp')!.type as arrow.Map_;
    const kv = (map.children[0]!.type as arrow.Struct).children;
    expect(kv.map(fieldIdOf)).toEqual([24, 25]);
    expect(kv[0]!.nullable).toBe(false);
    expect(byName.get('l')!.nullable).toBe(false);
  });
});
