/**
 * Row-group stitching: the stitched file must read back (parquet-wasm and hyparquet, independently) as
 * the inputs' rows in order, keep every chunk's bytes and statistics, point its footer at the copied
 * bytes, and give the same Iceberg metrics as a decode/encode rewrite of the same rows.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { FloeError } from '../../../util/errors.js';
import type { Field, FieldType } from '../../../model/table.js';
import {
  arrowSchemaForIceberg,
  icebergMetricsFromFooter,
  readParquetFooter,
  readParquetTable,
  rowsFromArrow,
  tableFromRows,
  writeParquet,
  type ParquetWriteOptions,
} from '../../../connectors/formats/parquet/index.js';
import {
  openStitchSource,
  ParquetStitcher,
  stitchParquet,
  stitchProblem,
  schemaSignature,
} from '../../../connectors/formats/parquet/stitch.js';
import { readThriftStruct, writeThriftStruct, TStruct } from '../../../connectors/formats/parquet/stitch-thrift.js';
import { floatFieldMetrics, floatMetricsFromInputs } from '../../../connectors/formats/parquet/stitch-metrics.js';
import {
  stitchBlocker,
  stitchPolicyFromProperties,
  stitchTask,
  type StitchTaskRequest,
} from '../../../connectors/formats/parquet/stitch-task.js';
import type { WrittenParquet } from '../../../connectors/formats/parquet/index.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures');

const p = (name: string, extra: Partial<Extract<FieldType, { kind: 'primitive' }>> = {}): FieldType =>
  ({ kind: 'primitive', name, ...extra }) as FieldType;
const f = (id: number, name: string, type: FieldType, required = false): Field => ({ id, name, type, required });

const FIELDS: Field[] = [
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
  f(13, 's', p('string')),
  f(14, 'u', p('uuid')),
  f(15, 'fx', p('fixed', { length: 4 })),
  f(16, 'bin', p('binary')),
  f(17, 'st', { kind: 'struct', fields: [f(18, 'x', p('int')), f(19, 'y', p('double'))] }),
  f(20, 'ls', { kind: 'list', elementId: 21, element: p('long'), elementRequired: false }),
  f(22, 'mp', { kind: 'map', keyId: 23, key: p('string'), valueId: 24, value: p('float'), valueRequired: false }),
];
const SCHEMA = arrowSchemaForIceberg(FIELDS);

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Rows of every type, with nulls, NaN, -0.0 and values beyond 2^53, deterministic per seed. */
function makeRows(n: number, seed: number, start: number): Record<string, unknown>[] {
  const r = rng(seed);
  const maybe = <T>(v: T, pNull = 0.1): T | null => (r() < pNull ? null : v);
  return Array.from({ length: n }, (_, k) => {
    const id = start + k;
    const x = r();
    return {
      b: maybe(x < 0.5),
      i: maybe(Math.floor(x * 2 ** 32) - 2 ** 31),
      l: BigInt(id) * 9_007_199_254_741n,
      fl: maybe(k % 97 === 0 ? NaN : Math.fround((x - 0.5) * 1e6)),
      db: maybe(k % 89 === 0 ? NaN : k % 83 === 0 ? -0 : (x - 0.5) * 1e12),
      d38: maybe(
        `${id % 2 ? '-' : ''}${Math.floor(x * 1e15)}${String(id).padStart(13, '0')}.${String(k % 10_000_000_000).padStart(10, '0')}`,
      ),
      d9: maybe(`${Math.floor(x * 1e6)}.${String(k % 100).padStart(2, '0')}`),
      dt: maybe(Math.floor(x * 40_000) - 20_000),
      tm: maybe(BigInt(Math.floor(x * 86_399_999_999))),
      ts: maybe(1_700_000_000_000_000n + BigInt(id) * 1_000_003n),
      tstz: maybe(-BigInt(id) * 7n),
      tsns: maybe(1_700_000_000_123_456_789n + BigInt(id)),
      s: maybe(`s-${(id * 7919) % 1000}-${x.toString(36).slice(2, 8)}✓`),
      u: maybe(`0123abcd-4567-89ef-0123-${String(id).padStart(12, '0')}`),
      fx: maybe(new Uint8Array([id & 255, (id >> 8) & 255, 7, 255])),
      bin: maybe(new Uint8Array(Array.from({ length: id % 5 }, (_, j) => (id + j) & 255))),
      st: maybe({ x: maybe(id % 1000), y: maybe(k % 71 === 0 ? NaN : x * 3) }),
      ls: maybe(Array.from({ length: id % 4 }, (_, j) => (j === 1 ? null : BigInt(id * 10 + j)))),
      mp: maybe(
        new Map<string, number | null>(
          Array.from({ length: id % 3 }, (_, j) => [`k${j}`, j === 1 ? null : Math.fround(x * j)]),
        ),
      ),
    };
  });
}

const WRITE: ParquetWriteOptions = { maxRowGroupRows: 400 };

async function input(
  n: number,
  seed: number,
  start: number,
  opts: ParquetWriteOptions = WRITE,
  fields = FIELDS,
): Promise<WrittenParquet> {
  return writeParquet(tableFromRows(arrowSchemaForIceberg(fields), makeRows(n, seed, start)), `in-${seed}`, opts);
}

async function hypRows(bytes: Uint8Array): Promise<Record<string, unknown>[]> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  return parquetReadObjects({ file, compressors });
}

describe('thrift compact protocol', () => {
  it('re-serialises footers of every fixture and of floe files byte for byte', async () => {
    const files: string[] = [];
    const walk = (d: string) => {
      for (const n of readdirSync(d)) {
        const full = path.join(d, n);
        if (statSync(full).isDirectory()) walk(full);
        else if (/\.(parquet|parq)$/.test(n)) files.push(full);
      }
    };
    walk(fixtures);
    expect(files.length).toBeGreaterThan(20);
    const own = await input(900, 1, 0);
    const all: [string, Uint8Array][] = [
      ...files.map((x) => [x, new Uint8Array(readFileSync(x))] as [string, Uint8Array]),
      ['floe', own.bytes],
    ];
    for (const [name, bytes] of all) {
      const len = new DataView(bytes.buffer, bytes.byteOffset).getUint32(bytes.byteLength - 8, true);
      const footer = bytes.subarray(bytes.byteLength - 8 - len, bytes.byteLength - 8);
      const { value, end } = readThriftStruct(footer);
      expect(end, name).toBe(footer.byteLength);
      expect(Buffer.from(writeThriftStruct(value)).equals(Buffer.from(footer)), name).toBe(true);
    }
  });

  it('writes negative, long-form and large values that hyparquet reads back', () => {
    const s = new TStruct([
      { id: 1, type: 5, value: -123456 },
      { id: 40, type: 6, value: -(2n ** 62n) },
      { id: 41, type: 8, value: new Uint8Array(300).fill(7) },
      {
        id: 42,
        type: 9,
        value: { kind: 'list', wire: 9, elemType: 5, items: Array.from({ length: 20 }, (_, i) => i - 10) },
      },
      { id: 43, type: 1, value: false },
      { id: 44, type: 4, value: -32768 },
    ]);
    const bytes = writeThriftStruct(s);
    const back = readThriftStruct(bytes).value;
    expect(back.get(1)).toBe(-123456);
    expect(back.get(40)).toBe(-(2n ** 62n));
    expect((back.get(41) as Uint8Array).length).toBe(300);
    expect(back.list(42)!.items).toEqual(Array.from({ length: 20 }, (_, i) => i - 10));
    expect(back.get(43)).toBe(false);
    expect(back.get(44)).toBe(-32768);
  });
});

/** The file with a footer claiming its first chunk is 1 byte shorter than its pages. */
function lyingCopy(bytes: Uint8Array): Uint8Array {
  const src = openStitchSource(bytes, 'liar.parquet');
  const md = ((src.meta.list(4)!.items[0] as TStruct).list(1)!.items[0] as TStruct).struct(3)!;
  md.set(7, 6, BigInt(Number(md.get(7)) - 1));
  const footer = writeThriftStruct(src.meta);
  const body = bytes.subarray(0, bytes.byteLength - 8 - src.footer.metadataLength);
  const liar = new Uint8Array(body.byteLength + footer.byteLength + 8);
  liar.set(body);
  liar.set(footer, body.byteLength);
  new DataView(liar.buffer).setUint32(body.byteLength + footer.byteLength, footer.byteLength, true);
  liar.set([0x50, 0x41, 0x52, 0x31], liar.byteLength - 4);
  return liar;
}

describe('stitchParquet', () => {
  it('reads back (parquet-wasm and hyparquet) as the inputs concatenated, every type included', async () => {
    const ins = [await input(1000, 1, 0), await input(350, 2, 1000), await input(820, 3, 1350)];
    const out = stitchParquet(
      ins.map((w, i) => ({ bytes: w.bytes, file: `in${i}` })),
      { file: 'out' },
    );
    expect(out.rowCount).toBe(2170);
    expect(out.footer.rowGroups.length).toBe(ins.reduce((s, w) => s + w.footer.rowGroups.length, 0));

    // parquet-wasm: stitched rows equal each input read on its own, in order
    const expected: Record<string, unknown>[] = [];
    for (const w of ins) expected.push(...rowsFromArrow(await readParquetTable(w.bytes, 'in'), FIELDS));
    const got = [...rowsFromArrow(await readParquetTable(out.bytes, 'out'), FIELDS)];
    expect(got.length).toBe(expected.length);
    expect(got).toEqual(expected);
    // and those are the rows we generated (NaN compares equal under toEqual)
    expect(expected).toEqual([...makeRows(1000, 1, 0), ...makeRows(350, 2, 1000), ...makeRows(820, 3, 1350)]);

    // hyparquet, an independent reader, agrees
    const hyExpected: Record<string, unknown>[] = [];
    for (const w of ins) hyExpected.push(...(await hypRows(w.bytes)));
    expect(await hypRows(out.bytes)).toEqual(hyExpected);
  });

  it('copies chunk bytes verbatim and points every offset at them', async () => {
    const ins = [await input(900, 4, 0), await input(500, 5, 900)];
    const out = stitchParquet(ins.map((w, i) => ({ bytes: w.bytes, file: `in${i}` })));
    const meta = parquetMetadata(
      out.bytes.buffer.slice(out.bytes.byteOffset, out.bytes.byteOffset + out.bytes.byteLength) as ArrayBuffer,
    );
    const srcGroups = ins.flatMap((w) => w.footer.rowGroups.map((rg) => ({ rg, bytes: w.bytes })));
    expect(meta.row_groups.length).toBe(srcGroups.length);
    expect(Number(meta.num_rows)).toBe(1400);
    expect(meta.created_by).toBe('floe version 0.1.0');
    let prevEnd = 4;
    meta.row_groups.forEach((rg, g) => {
      const src = srcGroups[g]!;
      expect(rg.ordinal).toBe(g);
      expect(Number(rg.num_rows)).toBe(src.rg.numRows);
      rg.columns.forEach((cc, c) => {
        const md = cc.meta_data!;
        const s = src.rg.columns[c]!;
        const start =
          md.dictionary_page_offset !== undefined ? Number(md.dictionary_page_offset) : Number(md.data_page_offset);
        const len = Number(md.total_compressed_size);
        expect(start).toBe(prevEnd); // chunks are laid out back to back
        prevEnd = start + len;
        expect(len).toBe(s.totalCompressedSize);
        expect(
          Buffer.from(out.bytes.subarray(start, start + len)).equals(
            Buffer.from(src.bytes.subarray(s.startOffset, s.startOffset + len)),
          ),
        ).toBe(true);
        expect(Number(md.data_page_offset) - start).toBe(s.dataPageOffset - s.startOffset);
        if (c === 0) expect(Number(rg.file_offset)).toBe(start);
      });
      expect(Number(rg.total_compressed_size)).toBe(src.rg.totalCompressedSize);
    });
    // the offset index of each chunk still lands on page headers inside the chunk (page type 0 = data page)
    const srcMeta = openStitchSource(out.bytes, 'out').meta;
    for (const rg of srcMeta.list(4)!.items as TStruct[]) {
      for (const cc of rg.list(1)!.items as TStruct[]) {
        const off = Number(cc.get(4));
        const len = cc.int(5)!;
        const locs = readThriftStruct(out.bytes, off, off + len).value.list(1)!.items as TStruct[];
        expect(locs.length).toBeGreaterThan(0);
        for (const loc of locs) expect(readThriftStruct(out.bytes, Number(loc.get(1))).value.int(1)).toBe(0);
      }
    }
  });

  it("keeps statistics, field ids, schema and the first input's key/value metadata", async () => {
    const a = await input(600, 6, 0, { ...WRITE, keyValueMetadata: { 'iceberg.schema': '{"first":true}' } });
    const b = await input(600, 7, 600, { ...WRITE, keyValueMetadata: { 'iceberg.schema': '{"first":false}' } });
    const out = stitchParquet([
      { bytes: a.bytes, file: 'a' },
      { bytes: b.bytes, file: 'b' },
    ]);
    expect(out.footer.keyValueMetadata.get('iceberg.schema')).toBe('{"first":true}');
    expect(schemaSignature(out.footer.schema)).toBe(schemaSignature(a.footer.schema));
    expect(out.footer.leaves.map((l) => l.fieldId)).toEqual(a.footer.leaves.map((l) => l.fieldId));
    const srcChunks = [...a.footer.rowGroups, ...b.footer.rowGroups].flatMap((rg) => rg.columns);
    const outChunks = out.footer.rowGroups.flatMap((rg) => rg.columns);
    expect(outChunks.map((c) => c.statistics)).toEqual(srcChunks.map((c) => c.statistics));
    expect(outChunks.map((c) => [c.numValues, c.codec, c.encodings])).toEqual(
      srcChunks.map((c) => [c.numValues, c.codec, c.encodings]),
    );
  });

  it('gives the Iceberg metrics of a decode/encode rewrite of the same rows', async () => {
    const ins = [await input(700, 8, 0), await input(700, 9, 700)];
    const out = stitchParquet(ins.map((w, i) => ({ bytes: w.bytes, file: `in${i}` })));
    const fm = await floatFieldMetrics(out.bytes, 'out', SCHEMA);
    const rows = [...makeRows(700, 8, 0), ...makeRows(700, 9, 700)];
    const rewritten = await writeParquet(tableFromRows(SCHEMA, rows), 'rewritten');
    for (const mode of ['truncate(16)', 'full', 'counts'] as const) {
      const stitched = icebergMetricsFromFooter(out.footer, FIELDS, { mode, fieldMetrics: fm });
      const normal = icebergMetricsFromFooter(rewritten.footer, FIELDS, { mode, fieldMetrics: rewritten.fieldMetrics });
      expect(stitched.recordCount).toBe(normal.recordCount);
      expect(stitched.valueCounts).toEqual(normal.valueCounts);
      expect(stitched.nullValueCounts).toEqual(normal.nullValueCounts);
      expect(stitched.nanValueCounts).toEqual(normal.nanValueCounts);
      expect(stitched.lowerBounds).toEqual(normal.lowerBounds);
      expect(stitched.upperBounds).toEqual(normal.upperBounds);
    }
    // hand check of one NaN count: rows with k % 97 === 0 that were not nulled carry NaN in `fl`
    const nanFl = rows.filter((r) => typeof r.fl === 'number' && Number.isNaN(r.fl)).length;
    expect(fm.get(4)!.nanCount).toBe(BigInt(nanFl));
  });

  it('stitches files written by Spark (parquet-mr 1.11) and reads back their rows', async () => {
    const dir = path.join(fixtures, 'impala/iceberg_partitioned/data/event_time_hour=2020-01-01-09/action=click');
    const names = readdirSync(dir)
      .filter((n) => n.endsWith('.parquet'))
      .sort();
    const ins = names.map((n) => ({ file: n, bytes: new Uint8Array(readFileSync(path.join(dir, n))) }));
    const out = stitchParquet(ins);
    const expected: Record<string, unknown>[] = [];
    for (const i of ins) expected.push(...(await hypRows(i.bytes)));
    expect(expected.length).toBeGreaterThan(0);
    expect(await hypRows(out.bytes)).toEqual(expected);
    expect(out.footer.createdBy).toBe('floe version 0.1.0');
    // parquet-mr ≥ 1.10 is trusted; the writer rule only refuses older ones
    expect(stitchProblem(openStitchSource(ins[0]!.bytes, ins[0]!.file))).toBeUndefined();
  });

  it('refuses inputs whose schemas differ, and chunks whose pages do not match the footer', async () => {
    const a = await input(100, 10, 0);
    const other = [f(1, 'b', p('boolean')), f(2, 'i', p('long'))];
    const b = await input(100, 11, 0, WRITE, other);
    expect(() =>
      stitchParquet([
        { bytes: a.bytes, file: 'a.parquet' },
        { bytes: b.bytes, file: 'b.parquet' },
      ]),
    ).toThrow(/schema of b.parquet differs/);

    const liar = lyingCopy(a.bytes);
    let err: unknown;
    try {
      new ParquetStitcher().add(openStitchSource(liar, 'liar.parquet'));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FloeError);
    expect((err as FloeError).kind).toBe('Corrupt');
    expect((err as FloeError).message).toMatch(/liar\.parquet/);
  });

  it('flags codecs, encodings and writers outside the rules', async () => {
    const snappy = await input(100, 12, 0, { ...WRITE, codec: 'snappy' });
    const src = openStitchSource(snappy.bytes, 's.parquet');
    expect(stitchProblem(src, { codecs: ['ZSTD'] })).toMatch(/codec SNAPPY/);
    expect(stitchProblem(src, { codecs: ['SNAPPY'] })).toBeUndefined();
    expect(stitchProblem(src, { encodings: ['PLAIN'] })).toMatch(/encoding (RLE|RLE_DICTIONARY)/);
    const old = await input(100, 13, 0, { ...WRITE, createdBy: 'parquet-mr version 1.8.1 (build x)' });
    expect(stitchProblem(openStitchSource(old.bytes, 'old'))).toMatch(/before 1\.10/);
  });
});

describe('stitchTask (the rewrite decision)', () => {
  const files = new Map<string, Uint8Array>();
  const request = (
    paths: string[],
    props: Record<string, string>,
    stored: WrittenParquet[],
    extra: Partial<StitchTaskRequest> = {},
  ): StitchTaskRequest => ({
    name: 't1',
    files: paths.map((x) => ({
      path: x,
      sizeBytes: files.get(x)!.byteLength,
      recordCount: readParquetFooter(files.get(x)!, x).numRows,
    })),
    read: async (x) => files.get(x)!,
    readRange: async (x, o, l) => files.get(x)!.slice(o, o + l),
    outputSchema: SCHEMA,
    policy: stitchPolicyFromProperties(props, 'zstd'),
    targetFileBytes: 1 << 30,
    onFileRead: () => {},
    store: async (w) => {
      stored.push(w);
    },
    ...extra,
  });

  it('stitches when safe and rolls outputs at the target size', async () => {
    for (const [i, seed] of [
      [0, 20],
      [1, 21],
      [2, 22],
    ] as const)
      files.set(`f${i}`, (await input(800, seed, i * 800)).bytes);
    const stored: WrittenParquet[] = [];
    const r = await stitchTask(request(['f0', 'f1', 'f2'], { 'floe.rewrite.stitch.min-row-group-bytes': '1' }, stored));
    expect(r).toMatchObject({ stitched: true, files: 3, outputs: 1 });
    expect(stored[0]!.rowCount).toBe(2400);
    expect(stored[0]!.fieldMetrics.get(5)).toBeDefined();

    const rolled: WrittenParquet[] = [];
    const target = Math.ceil(files.get('f0')!.byteLength / 2);
    const r2 = await stitchTask(
      request(['f0', 'f1', 'f2'], { 'floe.rewrite.stitch.min-row-group-bytes': '1' }, rolled, {
        targetFileBytes: target,
      }),
    );
    expect(r2.stitched).toBe(true);
    expect(rolled.length).toBeGreaterThan(2);
    expect(rolled.reduce((s, w) => s + w.rowCount, 0)).toBe(2400);
    const all: Record<string, unknown>[] = [];
    for (const w of rolled) all.push(...rowsFromArrow(await readParquetTable(w.bytes, 'o'), FIELDS));
    expect(all.map((x) => x.l)).toEqual(
      [...makeRows(800, 20, 0), ...makeRows(800, 21, 800), ...makeRows(800, 22, 1600)].map((x) => x.l),
    );
  });

  it("falls back for tiny row groups, a disabled property, other codecs and schemas other than the table's", async () => {
    files.set('g0', (await input(300, 30, 0)).bytes);
    files.set('g1', (await input(300, 31, 300)).bytes);
    files.set('snappy', (await input(300, 32, 600, { ...WRITE, codec: 'snappy' })).bytes);
    const narrow = [f(1, 'b', p('boolean')), f(3, 'l', p('long'), true)];
    files.set('narrow', (await input(300, 33, 900, WRITE, narrow)).bytes);
    const none: WrittenParquet[] = [];
    expect(await stitchBlocker(request(['g0', 'g1'], {}, none))).toMatch(
      /row groups average \d+ bytes, below 33554432/,
    );
    expect(
      await stitchBlocker(
        request(
          ['g0', 'g1'],
          { 'write.parquet.row-group-size-bytes': '400', 'floe.rewrite.stitch.enabled': 'false' },
          none,
        ),
      ),
    ).toMatch(/enabled=false/);
    const loose = { 'floe.rewrite.stitch.min-row-group-bytes': '1' };
    expect(await stitchBlocker(request(['g0', 'g1'], loose, none))).toBeUndefined();
    expect(await stitchBlocker(request(['g0', 'snappy'], loose, none))).toMatch(/codec SNAPPY/);
    expect(await stitchBlocker(request(['narrow'], loose, none))).toMatch(
      /schema differs from the table's current schema/,
    );
    expect(await stitchBlocker(request(['g0', 'narrow'], loose, none))).toMatch(/differs/);
    // v3 lineage: the output schema has _row_id; inputs without it are not stitched
    const lineage = [
      ...FIELDS,
      f(2147483540, '_row_id', p('long')),
      f(2147483539, '_last_updated_sequence_number', p('long')),
    ];
    expect(
      await stitchBlocker(
        request(['g0'], loose, none, {
          outputSchema: arrowSchemaForIceberg(lineage),
          nonNullFieldIds: [2147483540, 2147483539],
        }),
      ),
    ).toMatch(/2147483540 is not materialised/);
    expect(none).toEqual([]);
  });

  it('gives up (for the caller to discard and rewrite) when a chunk turns out not to match its footer', async () => {
    files.set('h0', (await input(800, 50, 0)).bytes);
    files.set('liar', lyingCopy((await input(800, 51, 800)).bytes));
    const stored: WrittenParquet[] = [];
    const loose = { 'floe.rewrite.stitch.min-row-group-bytes': '1' };
    expect(await stitchBlocker(request(['h0', 'liar'], loose, stored))).toBeUndefined(); // footers alone look fine
    const r = await stitchTask(request(['h0', 'liar'], loose, stored, { targetFileBytes: 1 }));
    expect(r.stitched).toBe(false);
    expect(r.stitched === false && r.reason).toMatch(
      /Parquet file liar cannot be stitched: .*(pages end at|page header)/,
    );
    expect(stored.length).toBeGreaterThan(0); // h0's row groups were already stored: the caller discards them
  });

  it('stitches v3 files whose lineage columns are already non-null, and not those with nulls', async () => {
    const lineage = [
      f(1, 'a', p('long'), true),
      f(2147483540, '_row_id', p('long')),
      f(2147483539, '_last_updated_sequence_number', p('long')),
    ];
    const schema = arrowSchemaForIceberg(lineage);
    const mk = (start: number, nullAt: number) =>
      writeParquet(
        tableFromRows(
          schema,
          Array.from({ length: 500 }, (_, k) => ({
            a: BigInt(start + k),
            _row_id: k === nullAt ? null : BigInt(start + k),
            _last_updated_sequence_number: 3n,
          })),
        ),
        'v3',
        WRITE,
      );
    files.set('v3a', (await mk(0, -1)).bytes);
    files.set('v3b', (await mk(500, -1)).bytes);
    files.set('v3null', (await mk(1000, 450)).bytes);
    const extra = { outputSchema: schema, nonNullFieldIds: [2147483540, 2147483539] };
    const loose = { 'floe.rewrite.stitch.min-row-group-bytes': '1' };
    const stored: WrittenParquet[] = [];
    expect(await stitchTask(request(['v3a', 'v3b'], loose, stored, extra))).toMatchObject({ stitched: true });
    expect(await stitchBlocker(request(['v3a', 'v3null'], loose, [], extra))).toMatch(
      /_row_id may hold nulls in row group 1/,
    );
  });
});

describe('float metrics of a stitched file', () => {
  it("merges the inputs' manifest NaN counts and bounds, or refuses when they are incomplete", async () => {
    const a = await input(500, 40, 0);
    const b = await input(500, 41, 500);
    const stats = (w: WrittenParquet) => {
      const m = icebergMetricsFromFooter(w.footer, FIELDS, { mode: 'full', fieldMetrics: w.fieldMetrics });
      return {
        valueCounts: m.valueCounts,
        nullValueCounts: m.nullValueCounts,
        nanValueCounts: m.nanValueCounts,
        lowerBounds: m.lowerBounds,
        upperBounds: m.upperBounds,
      };
    };
    const merged = floatMetricsFromInputs(SCHEMA, [stats(a), stats(b)]);
    const out = stitchParquet([
      { bytes: a.bytes, file: 'a' },
      { bytes: b.bytes, file: 'b' },
    ]);
    const decoded = await floatFieldMetrics(out.bytes, 'out', SCHEMA);
    expect(merged).toBeDefined();
    // float ids: 4 (fl), 5 (db), 19 (st.y); 24 (mp.value) is inside a map, where Iceberg keeps no metrics
    expect([...merged!.keys()].sort((x, y) => x - y)).toEqual([4, 5, 19]);
    for (const id of [4, 5, 19]) expect(merged!.get(id)).toEqual(decoded.get(id));

    const noNan = { ...stats(a), nanValueCounts: new Map() };
    expect(floatMetricsFromInputs(SCHEMA, [noNan, stats(b)])).toBeUndefined();
    const noBounds = { ...stats(a), lowerBounds: new Map(), upperBounds: new Map() };
    expect(floatMetricsFromInputs(SCHEMA, [noBounds, stats(b)])).toBeUndefined();
    const nanBound = stats(a);
    nanBound.lowerBounds.set(5, NaN);
    expect(floatMetricsFromInputs(SCHEMA, [nanBound, stats(b)])).toBeUndefined();
    expect(floatMetricsFromInputs(SCHEMA, [undefined])).toBeUndefined();
  });
});
