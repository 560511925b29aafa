/**
 * Every Iceberg column shape through floe's Parquet layer: nested types at any depth, the large/view Arrow
 * layouts pyarrow produces (narrowed without per-value strings), ns timestamps, uuid/fixed/decimal(38)/binary,
 * v3 `unknown`, schema evolution inside structs, Iceberg's nested Parquet layout and Java 1.10's metrics rules.
 */
import { describe, expect, it } from 'vitest';
import * as arrow from 'apache-arrow';
import type { Field } from '../../../model/table.js';
import {
  arrowSchemaForIceberg,
  castToSchema,
  icebergMetricsFromFooter,
  readParquetTable,
  rowsFromArrow,
  tableFromRows,
  writeParquet,
} from '../../../connectors/formats/parquet/index.js';
import { withFieldId } from '../../../model/arrow/field-id.js';
import * as pw from 'parquet-wasm';
import { f, list, map, p, struct, toLargeLayout } from './fixtures/iceberg-type-tables.js';
import { openParquet, readColumnsById } from '../../../connectors/iceberg/parquet-reader.js';

const FIELDS: Field[] = [
  f(1, 'id', p('long'), true),
  f(
    2,
    'payload',
    struct(f(20, 'a', p('int')), f(21, 'inner', struct(f(22, 'deep', p('string')), f(23, 'score', p('double'))))),
  ),
  f(3, 'tags', list(30, p('long'))),
  f(4, 'attrs', map(40, p('string'), 41, struct(f(42, 'x', p('double')), f(43, 'ys', list(44, p('string')))))),
  f(5, 'items', list(50, struct(f(51, 'k', p('string')), f(52, 'nums', list(53, p('int')))))),
  f(6, 'u', p('uuid')),
  f(7, 'fx', p('fixed', { length: 3 })),
  f(8, 'd38', p('decimal', { precision: 38, scale: 6 })),
  f(9, 'bin', p('binary')),
  f(10, 'ts', p('timestamp')),
  f(11, 'tsns', p('timestamp_ns')),
  f(12, 'tstzns', p('timestamptz_ns')),
  f(13, 'nothing', p('unknown')),
];

const ROWS: Record<string, unknown>[] = [
  {
    id: 1n,
    payload: { a: 7, inner: { deep: 'héllo', score: 1.5 } },
    tags: [1n, -2n, 9223372036854775807n],
    attrs: new Map([
      ['k', { x: 0.25, ys: ['p', null] }],
      ['z', null],
    ]),
    items: [{ k: 'a', nums: [1, null, 3] }, null, { k: null, nums: [] }],
    u: '123e4567-e89b-12d3-a456-426614174000',
    fx: new Uint8Array([1, 2, 255]),
    d38: '99999999999999999999999999999999.999999',
    bin: new Uint8Array([0, 0xff, 7]),
    ts: -1n,
    tsns: 1_700_000_000_123_456_789n,
    tstzns: -9_000_000_000_000_000_001n,
    nothing: null,
  },
  {
    id: 2n,
    payload: null,
    tags: null,
    attrs: null,
    items: null,
    u: null,
    fx: null,
    d38: null,
    bin: null,
    ts: null,
    tsns: null,
    tstzns: null,
    nothing: null,
  },
  {
    id: 3n,
    payload: { a: null, inner: null },
    tags: [],
    attrs: new Map(),
    items: [],
    u: 'ffffffff-ffff-ffff-ffff-ffffffffffff',
    fx: new Uint8Array([0, 0, 0]),
    d38: '-99999999999999999999999999999999.999999',
    bin: new Uint8Array(0),
    ts: 1_700_000_000_000_001n,
    tsns: 1n,
    tstzns: 0n,
    nothing: null,
  },
];

async function roundTrip(fields: Field[], rows: Record<string, unknown>[]) {
  const written = await writeParquet(tableFromRows(arrowSchemaForIceberg(fields), rows), 'nested.parquet');
  const read = await readParquetTable(written.bytes, 'nested.parquet');
  return { written, rows: [...rowsFromArrow(castToSchema(read, fields, 'nested.parquet'), fields)] };
}

describe('nested and wide primitive types round trip through write → read → cast', () => {
  it('keeps every value exactly (struct in struct, list<long>, map<string,struct<list>>, list<struct<list>>, uuid, fixed, decimal(38), ns)', async () => {
    const { rows } = await roundTrip(FIELDS, ROWS);
    expect(rows).toEqual(ROWS);
  });

  it("writes Iceberg's nested Parquet layout: list/element, map key_value/key/value, field ids on every non-repeated level", async () => {
    const { written } = await roundTrip(FIELDS, ROWS);
    const byName = new Map(written.footer.schema.map((n) => [n.name, n]));
    const attrs = byName.get('attrs')!;
    expect(attrs.fieldId).toBe(4);
    expect(attrs.children!.map((c) => c.name)).toEqual(['key_value']);
    expect(attrs.children![0]!.repetition).toBe('REPEATED');
    expect(attrs.children![0]!.children!.map((c) => [c.name, c.fieldId, c.repetition])).toEqual([
      ['key', 40, 'REQUIRED'],
      ['value', 41, 'OPTIONAL'],
    ]);
    const items = byName.get('items')!;
    expect(items.children!.map((c) => c.name)).toEqual(['list']);
    const element = items.children![0]!.children![0]!;
    expect([element.name, element.fieldId]).toEqual(['element', 50]);
    expect(element.children!.map((c) => c.fieldId)).toEqual([51, 52]);
    // every leaf carries its Iceberg field id
    expect(written.footer.leaves.map((l) => l.fieldId).sort((a, b) => a! - b!)).toEqual([
      1, 6, 7, 8, 9, 10, 11, 12, 20, 22, 23, 30, 40, 42, 44, 51, 53,
    ]);
    // uuid carries the UUID logical type (Java's reader needs it to return java.util.UUID, not byte[]); fixed does not
    expect(byName.get('u')!).toMatchObject({
      physicalType: 'FIXED_LEN_BYTE_ARRAY',
      typeLength: 16,
      logicalType: { type: 'UUID' },
    });
    expect(byName.get('fx')!.logicalType).toBeUndefined();
    // ns timestamps are INT64 TIMESTAMP(NANOS)
    const tsns = byName.get('tsns')!;
    expect(tsns.physicalType).toBe('INT64');
    expect(tsns.logicalType).toMatchObject({ type: 'TIMESTAMP', unit: 'NANOS', isAdjustedToUTC: false });
    expect(byName.get('tstzns')!.logicalType).toMatchObject({
      type: 'TIMESTAMP',
      unit: 'NANOS',
      isAdjustedToUTC: true,
    });
  });

  it('leaves v3 unknown columns out of the file and reads them back as null', async () => {
    const { written, rows } = await roundTrip(FIELDS, ROWS);
    expect(written.footer.schema.map((n) => n.name)).not.toContain('nothing');
    expect(rows.map((r) => r.nothing)).toEqual([null, null, null]);
    // inside a struct too
    const fields = [f(1, 'id', p('long'), true), f(2, 's', struct(f(3, 'u', p('unknown')), f(4, 'v', p('int'))))];
    const rt = await roundTrip(fields, [
      { id: 1n, s: { u: null, v: 5 } },
      { id: 2n, s: null },
    ]);
    expect(rt.written.footer.leaves.map((l) => l.fieldId)).toEqual([1, 4]);
    expect(rt.rows).toEqual([
      { id: 1n, s: { u: null, v: 5 } },
      { id: 2n, s: null },
    ]);
  });

  it('metrics follow Java 1.10: counts and bounds for struct leaves, only column sizes inside lists and maps', async () => {
    const { written } = await roundTrip(FIELDS, ROWS);
    const m = icebergMetricsFromFooter(written.footer, FIELDS, { fieldMetrics: written.fieldMetrics });
    // struct leaves: value/null counts and bounds
    expect(m.valueCounts.get(22)).toBe(3n);
    expect(m.nullValueCounts.get(22)).toBe(2n);
    expect(m.lowerBounds.get(22)).toBe('héllo');
    expect(m.lowerBounds.get(20)).toBe(7);
    expect(m.lowerBounds.get(23)).toBe(1.5);
    expect(m.nanValueCounts.get(23)).toBe(0n);
    // leaves inside lists/maps: size only
    for (const id of [30, 40, 42, 44, 51, 53]) {
      expect(m.columnSizes.get(id), `size of ${id}`).toBeGreaterThan(0n);
      expect(m.valueCounts.has(id), `value count of ${id}`).toBe(false);
      expect(m.nullValueCounts.has(id), `null count of ${id}`).toBe(false);
      expect(m.nanValueCounts.has(id), `NaN count of ${id}`).toBe(false);
      expect(m.lowerBounds.has(id), `bound of ${id}`).toBe(false);
    }
    // wide primitives
    expect(m.lowerBounds.get(6)).toBe('123e4567-e89b-12d3-a456-426614174000');
    expect(m.upperBounds.get(6)).toBe('ffffffff-ffff-ffff-ffff-ffffffffffff');
    expect(m.lowerBounds.get(8)).toBe('-99999999999999999999999999999999.999999');
    expect(m.upperBounds.get(8)).toBe('99999999999999999999999999999999.999999');
    expect(m.lowerBounds.get(11)).toBe(1n);
    expect(m.upperBounds.get(11)).toBe(1_700_000_000_123_456_789n);
    expect(m.lowerBounds.get(12)).toBe(-9_000_000_000_000_000_001n);
    // unknown: not in the file, no metrics
    expect(m.columnSizes.has(13)).toBe(false);
  });
});

describe('schema evolution inside nested types (matched by field id)', () => {
  it('renames, reorders and adds struct fields (with initial-default), inside lists and map values too', async () => {
    const old: Field[] = [
      f(1, 'id', p('long'), true),
      f(2, 's', struct(f(3, 'a', p('int')), f(4, 'b', p('string')))),
      f(5, 'l', list(6, struct(f(7, 'x', p('int'))))),
      f(8, 'm', map(9, p('string'), 10, struct(f(11, 'y', p('float'))))),
    ];
    const written = await writeParquet(
      tableFromRows(arrowSchemaForIceberg(old), [
        { id: 1n, s: { a: 1, b: 'one' }, l: [{ x: 1 }, null], m: new Map([['k', { y: 1.5 }]]) },
        { id: 2n, s: null, l: null, m: null },
      ]),
      'old.parquet',
    );
    const current: Field[] = [
      f(1, 'id', p('long'), true),
      // reordered, b renamed to bee, a widened int→long, c added with an initial default
      f(
        2,
        's',
        struct(
          f(4, 'bee', p('string')),
          f(12, 'c', p('string'), false, { initialDefault: 'dflt' }),
          f(3, 'a', p('long')),
        ),
      ),
      f(5, 'l', list(6, struct(f(7, 'x', p('long')), f(13, 'added', p('int'))))),
      f(
        8,
        'm',
        map(
          9,
          p('string'),
          10,
          struct(f(11, 'y', p('double')), f(14, 'z', p('boolean'), false, { initialDefault: true })),
        ),
      ),
    ];
    const read = await readParquetTable(written.bytes, 'old.parquet');
    const rows = [...rowsFromArrow(castToSchema(read, current, 'old.parquet'), current)];
    expect(rows).toEqual([
      {
        id: 1n,
        s: { bee: 'one', c: 'dflt', a: 1n },
        l: [{ x: 1n, added: null }, null],
        m: new Map([['k', { y: 1.5, z: true }]]),
      },
      { id: 2n, s: null, l: null, m: null },
    ]);
  });
});

describe('the scan reader (hyparquet path) on nested columns', () => {
  it('reads every shape, matches struct children by id, fills added struct fields with their initial-default', async () => {
    const { written } = await roundTrip(FIELDS, ROWS);
    const evolved = FIELDS.map((x) =>
      x.id === 2
        ? f(
            2,
            'payload',
            struct(
              f(21, 'inner', struct(f(23, 'score', p('double')), f(22, 'deep_renamed', p('string')))),
              f(20, 'a', p('int')),
              f(99, 'added', p('long'), false, { initialDefault: 42 }),
            ),
          )
        : x,
    );
    const rows = await readColumnsById(openParquet(written.bytes, 'nested.parquet'), evolved);
    const byName = (r: unknown[]) => Object.fromEntries(evolved.map((x, i) => [x.name, r[i]]));
    const first = byName(rows[0]!);
    expect(first.payload).toEqual({ inner: { score: 1.5, deep_renamed: 'héllo' }, a: 7, added: 42n });
    expect(first.tags).toEqual([1n, -2n, 9223372036854775807n]);
    expect(first.u).toBe('123e4567-e89b-12d3-a456-426614174000');
    expect(first.d38).toBe('99999999999999999999999999999999.999999');
    expect(first.tsns).toBe(1_700_000_000_123_456_789n);
    expect(first.items).toEqual([{ k: 'a', nums: [1, null, 3] }, null, { k: null, nums: [] }]);
    expect(byName(rows[1]!).payload).toBeNull();
    expect(byName(rows[2]!).payload).toEqual({ inner: null, a: null, added: 42n });
  });
});

/** Large/view layouts as pyarrow (PyIceberg) and DuckDB produce them. */
describe('large and view Arrow layouts are narrowed without per-value strings', () => {
  const encoder = new TextEncoder();
  const words = ['', 'ä', 'a fairly long string value', null, 'z'];

  function largeUtf8(): arrow.Data {
    const bytes = encoder.encode(words.map((w) => w ?? '').join(''));
    const offsets = new BigInt64Array(words.length + 1);
    let at = 0;
    words.forEach((w, i) => {
      at += encoder.encode(w ?? '').length;
      offsets[i + 1] = BigInt(at);
    });
    const nullBitmap = new Uint8Array([0b10111]);
    return arrow.makeData({
      type: new arrow.LargeUtf8(),
      length: words.length,
      nullCount: 1,
      nullBitmap,
      valueOffsets: offsets,
      data: bytes,
    });
  }

  function utf8View(): arrow.Data {
    // long values (> 12 bytes) live in a variadic buffer, short ones inline
    const views = new Uint8Array(words.length * 16);
    const dv = new DataView(views.buffer);
    const long = encoder.encode('x' + words[2]!); // 1 byte of padding before the value
    words.forEach((w, i) => {
      const b = encoder.encode(w ?? '');
      dv.setInt32(i * 16, b.length, true);
      if (b.length <= 12) views.set(b, i * 16 + 4);
      else {
        views.set(b.subarray(0, 4), i * 16 + 4);
        dv.setInt32(i * 16 + 8, 0, true);
        dv.setInt32(i * 16 + 12, 1, true);
      }
    });
    return arrow.makeData({
      type: new arrow.Utf8View(),
      length: words.length,
      nullBitmap: new Uint8Array([0b10111]),
      views,
      variadicBuffers: [long],
    } as never);
  }

  const stringField = [f(1, 's', p('string'))];
  const tableOf = (data: arrow.Data, name = 's', id = 1) => {
    const schema = new arrow.Schema([new arrow.Field(name, data.type, true, withFieldId(undefined, id))]);
    return new arrow.Table(schema, [
      new arrow.RecordBatch(
        schema,
        arrow.makeData({ type: new arrow.Struct(schema.fields), length: data.length, nullCount: 0, children: [data] }),
      ),
    ]);
  };

  it('LargeUtf8 → Utf8 shares the value bytes (zero-copy) and keeps every value', () => {
    const src = largeUtf8();
    const out = castToSchema(tableOf(src), stringField);
    const col = out.batches[0]!.data.children[0]!;
    expect(String(col.type)).toBe('Utf8');
    expect((col.values as Uint8Array).buffer).toBe((src.values as Uint8Array).buffer);
    expect([...rowsFromArrow(out, stringField)].map((r) => r.s)).toEqual(words);
  });

  it('LargeUtf8 slices (deletes applied as zero-copy slices) narrow with rebased offsets', () => {
    const sliced = largeUtf8().slice(2, 3);
    const out = castToSchema(tableOf(sliced), stringField);
    expect([...rowsFromArrow(out, stringField)].map((r) => r.s)).toEqual(words.slice(2));
  });

  it('Utf8View → Utf8 gathers inline and buffered values', () => {
    const out = castToSchema(tableOf(utf8View()), stringField);
    expect(String(out.batches[0]!.data.children[0]!.type)).toBe('Utf8');
    expect([...rowsFromArrow(out, stringField)].map((r) => r.s)).toEqual(words);
  });

  it('dictionary-encoded strings decode by byte gather', () => {
    const dict = arrow.vectorFromArray(['red', 'green', 'blue'], new arrow.Utf8());
    const indices = new Int32Array([2, 0, 0, 1, 2]);
    const data = arrow.makeData({
      type: new arrow.Dictionary(new arrow.Utf8(), new arrow.Int32()),
      length: 5,
      nullCount: 1,
      nullBitmap: new Uint8Array([0b11011]),
      data: indices,
      dictionary: dict,
    });
    const out = castToSchema(tableOf(data), stringField);
    expect([...rowsFromArrow(out, stringField)].map((r) => r.s)).toEqual(['blue', 'red', null, 'green', 'blue']);
  });

  it("a file written with large_list<int64> / large_string / large_binary (pyarrow's layout) compacts into plain types", async () => {
    // the failure PyIceberg tables hit: "cannot read LargeList<Int64> as List<Int64>"
    const fields = [
      f(1, 'tags', list(2, p('long'))),
      f(3, 'name', p('string')),
      f(4, 'raw', p('binary')),
      f(5, 'nested', list(6, list(7, p('string')))),
    ];
    const rows = [
      { tags: [1n, 2n], name: 'a', raw: new Uint8Array([1]), nested: [['x', null], [], null] },
      { tags: null, name: null, raw: null, nested: null },
      { tags: [], name: 'ccc', raw: new Uint8Array(0), nested: [['yy']] },
    ];
    const plain = tableFromRows(arrowSchemaForIceberg(fields), rows);
    const large = toLargeLayout(plain);
    expect(String(large.schema.fields[0]!.type)).toBe('LargeList<Int64>');
    const bytes = pw.writeParquet(pw.Table.fromIPCStream(arrow.tableToIPC(large, 'stream'))); // as pyarrow would
    const read = await readParquetTable(bytes, 'pyarrow-like.parquet');
    expect(String(read.schema.fields[0]!.type)).toBe('LargeList<Int64>'); // the embedded Arrow schema wins
    const cast = castToSchema(read, fields, 'pyarrow-like.parquet');
    expect(cast.schema.fields.map((x) => String(x.type))).toEqual([
      'List<Int64>',
      'Utf8',
      'Binary',
      'List<List<Utf8>>',
    ]);
    expect([...rowsFromArrow(cast, fields)]).toEqual(rows);
    // a slice (how deletes drop rows) narrows with rebased offsets and the validity bitmap's offset kept
    expect([...rowsFromArrow(castToSchema(read.slice(1), fields, 'sliced'), fields)]).toEqual(rows.slice(1));
    expect([...rowsFromArrow(castToSchema(read.slice(2), fields, 'sliced'), fields)]).toEqual(rows.slice(2));
    // and the narrowed table writes and reads back identically
    const again = await writeParquet(cast, 'out.parquet');
    const back = castToSchema(await readParquetTable(again.bytes, 'out.parquet'), fields, 'out.parquet');
    expect([...rowsFromArrow(back, fields)]).toEqual(rows);
  });
});
