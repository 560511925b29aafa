/**
 * readOrcFile end to end: (1) a small ORC file built here by hand, stream by stream, from the spec's layout
 * (every column kind Paimon manifests use, nulls at each level, two stripes, each compression kind), and
 * (2) the ORC manifests and manifest lists of the Java-written `append_09` fixture, cross-checked against
 * facts outside the decoder: file sizes on disk, data files in the directory, snapshot JSON record counts,
 * the partition directory names and the origin README's values.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { deflateRawSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { isFloeError } from '../../../util/errors.js';
import { readOrcFile, readTail, readStripeFooter, CompressionKind } from '../../../connectors/formats/orc/index.js';
import { ensureZstdEncoder, snappyCompress, zstdCompress } from '../../../connectors/formats/compression.js';

// ------------------------------------------------------------------------------------ a tiny ORC writer

const cat = (parts: (Uint8Array | number[])[]) =>
  Buffer.concat(parts.map((p) => Buffer.from(p instanceof Uint8Array ? p : Uint8Array.from(p))));
function varint(v: bigint | number): number[] {
  let x = BigInt(v);
  const out: number[] = [];
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x) b |= 0x80;
    out.push(b);
  } while (x);
  return out;
}
const zz = (v: bigint) => (v >= 0n ? v << 1n : (-v << 1n) - 1n);
const pbUint = (field: number, v: number | bigint) => [...varint((field << 3) | 0), ...varint(v)];
const pbBytes = (field: number, b: Uint8Array | number[]) => cat([varint((field << 3) | 2), varint(b.length), b]);
const pbStr = (field: number, s: string) => pbBytes(field, Buffer.from(s, 'utf8'));

function byteRle(bytes: number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i += 128) {
    const part = bytes.slice(i, i + 128);
    out.push(256 - part.length, ...part);
  }
  return out;
}
function boolRle(bits: boolean[]): number[] {
  const bytes: number[] = [];
  bits.forEach((b, i) => {
    if (i % 8 === 0) bytes.push(0);
    if (b) bytes[bytes.length - 1]! |= 0x80 >> (i % 8);
  });
  return byteRle(bytes);
}
/** RLE v1 literal groups. */
function intV1(values: bigint[], signed: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i += 128) {
    const part = values.slice(i, i + 128);
    out.push(256 - part.length, ...part.flatMap((v) => varint(signed ? zz(v) : v)));
  }
  return out;
}
/** RLE v2 direct groups at 64 bits. */
function intV2(values: bigint[], signed: boolean): number[] {
  const out: number[] = [];
  for (let i = 0; i < values.length; i += 512) {
    const part = values.slice(i, i + 512);
    out.push(0x40 | (31 << 1) | ((part.length - 1) >> 8), (part.length - 1) & 0xff);
    for (const v of part) {
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(BigInt.asUintN(64, signed ? zz(v) : v));
      out.push(...b);
    }
  }
  return out;
}

// type ids (pre-order): 0 root; 1 a:int; 2 b:string(dict); 3 c:list; 4 c.elem:bigint; 5 d:boolean; 6 e:double;
// 7 f:tinyint; 8 g:binary; 9 h:map; 10 h.key:string; 11 h.value:int; 12 l:timestamp; 13 m:string(v1); 14 n:struct; 15 n.x:int
const TYPES: [number, number[], string[]][] = [
  [12, [1, 2, 3, 5, 6, 7, 8, 9, 12, 13, 14], ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'l', 'm', 'n']],
  [3, [], []],
  [7, [], []],
  [10, [4], []],
  [4, [], []],
  [0, [], []],
  [6, [], []],
  [1, [], []],
  [8, [], []],
  [11, [10, 11], []],
  [7, [], []],
  [3, [], []],
  [9, [], []],
  [7, [], []],
  [12, [15], ['x']],
  [3, [], []],
];
const ENCODINGS = [0, 0, 3, 2, 2, 0, 0, 0, 2, 2, 2, 2, 2, 0, 0, 2];

type Row = {
  a: number | null;
  b: string;
  c: bigint[] | null;
  d: boolean | null;
  e: number | null;
  f: number;
  g: Buffer | null;
  h: Record<string, number> | null;
  l: bigint | null;
  m: string;
  n: { x: number } | null;
};

const TS_BASE_MS = BigInt(Date.UTC(2015, 0, 1));
const STRIPES: Row[][] = [
  [
    {
      a: 1,
      b: 'x',
      c: [1n, -2n],
      d: true,
      e: 1.5,
      f: -1,
      g: Buffer.from([1, 2]),
      h: { k: 1, j: -5 },
      l: TS_BASE_MS + 5n,
      m: 'hello',
      n: { x: 9 },
    },
    { a: null, b: 'yy', c: [], d: false, e: null, f: 127, g: null, h: {}, l: null, m: '', n: null },
    {
      a: -7,
      b: 'x',
      c: null,
      d: null,
      e: -0.25,
      f: 0,
      g: Buffer.alloc(0),
      h: null,
      l: TS_BASE_MS + 86_400_000n * 365n,
      m: 'ünï',
      n: { x: -1 },
    },
  ],
  [
    {
      a: 2 ** 31 - 1,
      b: 'z',
      c: [2n ** 63n - 1n],
      d: true,
      e: 0,
      f: -128,
      g: Buffer.from('hi'),
      h: { a: 0 },
      l: TS_BASE_MS - 1000n,
      m: 'last',
      n: { x: 0 },
    },
  ],
];

/** Encodes one stripe's columns; returns [column, kind, bytes] streams in file order and the column encodings. */
function stripeStreams(rows: Row[]): [number, number, Buffer][] {
  const s: [number, number, Buffer][] = [];
  const put = (col: number, kind: number, bytes: number[] | Uint8Array) => s.push([col, kind, cat([bytes])]);
  const present = (col: number, vals: unknown[]) => {
    if (vals.some((v) => v === null)) put(col, 0, boolRle(vals.map((v) => v !== null)));
    return vals.filter((v) => v !== null);
  };
  const a = present(
    1,
    rows.map((r) => r.a),
  ) as number[];
  put(1, 1, intV1(a.map(BigInt), true));
  const dict = [...new Set(rows.map((r) => r.b))].sort();
  put(
    2,
    1,
    intV2(
      rows.map((r) => BigInt(dict.indexOf(r.b))),
      false,
    ),
  );
  put(2, 3, Buffer.from(dict.join(''), 'utf8'));
  put(
    2,
    2,
    intV2(
      dict.map((d) => BigInt(Buffer.byteLength(d))),
      false,
    ),
  );
  const c = present(
    3,
    rows.map((r) => r.c),
  ) as bigint[][];
  put(
    3,
    2,
    intV2(
      c.map((l) => BigInt(l.length)),
      false,
    ),
  );
  put(4, 1, intV2(c.flat(), true));
  const d = present(
    5,
    rows.map((r) => r.d),
  ) as boolean[];
  put(5, 1, boolRle(d));
  const e = present(
    6,
    rows.map((r) => r.e),
  ) as number[];
  put(
    6,
    1,
    cat(
      e.map((v) => {
        const b = Buffer.alloc(8);
        b.writeDoubleLE(v);
        return b;
      }),
    ),
  );
  put(7, 1, byteRle(rows.map((r) => r.f & 0xff)));
  const g = present(
    8,
    rows.map((r) => r.g),
  ) as Buffer[];
  put(
    8,
    2,
    intV2(
      g.map((b) => BigInt(b.length)),
      false,
    ),
  );
  put(8, 1, cat(g));
  const h = present(
    9,
    rows.map((r) => r.h),
  ) as Record<string, number>[];
  put(
    9,
    2,
    intV2(
      h.map((m) => BigInt(Object.keys(m).length)),
      false,
    ),
  );
  const keys = h.flatMap((m) => Object.keys(m));
  put(
    10,
    2,
    intV2(
      keys.map((k) => BigInt(Buffer.byteLength(k))),
      false,
    ),
  );
  put(10, 1, Buffer.from(keys.join(''), 'utf8'));
  put(
    11,
    1,
    intV2(
      h.flatMap((m) => Object.values(m).map(BigInt)),
      true,
    ),
  );
  const l = present(
    12,
    rows.map((r) => r.l),
  ) as bigint[];
  // seconds since 2015 (floored) and nanos with trailing zeros folded in: millis m → m*10^6 ns = m followed by 6 zeros
  put(
    12,
    1,
    intV2(
      l.map((ms) => (ms - TS_BASE_MS - (((ms % 1000n) + 1000n) % 1000n)) / 1000n),
      true,
    ),
  );
  put(
    12,
    5,
    intV2(
      l.map((ms) => {
        const rem = ((ms % 1000n) + 1000n) % 1000n;
        return rem === 0n ? 0n : (rem << 3n) | 5n;
      }),
      false,
    ),
  );
  put(
    13,
    2,
    intV1(
      rows.map((r) => BigInt(Buffer.byteLength(r.m))),
      false,
    ),
  );
  put(13, 1, Buffer.from(rows.map((r) => r.m).join(''), 'utf8'));
  const n = present(
    14,
    rows.map((r) => r.n),
  ) as { x: number }[];
  put(
    15,
    1,
    intV2(
      n.map((v) => BigInt(v.x)),
      true,
    ),
  );
  return s;
}

type Compress = ((b: Buffer) => Uint8Array) | undefined;
function frame(data: Buffer, compress: Compress, chunkSize = 7): Buffer {
  if (!compress) return data;
  const parts: Buffer[] = [];
  // small chunks so that every stream spans several; odd chunks stored as "original"
  for (let i = 0, k = 0; i < data.length || i === 0; i += chunkSize, k++) {
    const raw = data.subarray(i, i + chunkSize);
    const body = k % 2 === 1 ? raw : Buffer.from(compress(raw));
    const hdr = body.length * 2 + (k % 2 === 1 ? 1 : 0);
    parts.push(Buffer.from([hdr & 0xff, (hdr >> 8) & 0xff, hdr >> 16]), body);
    if (data.length === 0) break;
  }
  return Buffer.concat(parts);
}

function buildOrc(kind: number, compress: Compress): Buffer {
  const parts: Buffer[] = [Buffer.from('ORC')];
  let offset = 3;
  const stripeInfos: Buffer[] = [];
  for (const rows of STRIPES) {
    const streams = stripeStreams(rows).map(([col, k, bytes]) => [col, k, frame(bytes, compress)] as const);
    const data = Buffer.concat(streams.map((s) => s[2]));
    const sf = frame(
      cat([
        ...streams.map(([col, k, b]) => pbBytes(1, cat([pbUint(1, k), pbUint(2, col), pbUint(3, b.length)]))),
        ...ENCODINGS.map((enc) =>
          pbBytes(2, cat([pbUint(1, enc), ...(enc === 3 ? [pbUint(2, new Set(rows.map((r) => r.b)).size)] : [])])),
        ),
        pbStr(3, 'UTC'),
      ]),
      compress,
    );
    stripeInfos.push(
      pbBytes(
        3,
        cat([pbUint(1, offset), pbUint(2, 0), pbUint(3, data.length), pbUint(4, sf.length), pbUint(5, rows.length)]),
      ),
    );
    parts.push(data, sf);
    offset += data.length + sf.length;
  }
  const types = TYPES.map(([k, subs, names]) =>
    pbBytes(
      4,
      cat([
        pbUint(1, k),
        ...(subs.length
          ? [
              pbBytes(
                2,
                subs.flatMap((x) => varint(x)),
              ),
            ]
          : []),
        ...names.map((nm) => pbStr(3, nm)),
      ]),
    ),
  );
  const footer = frame(
    cat([
      pbUint(1, 3),
      pbUint(2, offset),
      ...stripeInfos,
      ...types,
      pbBytes(5, cat([pbStr(1, 'k'), pbStr(2, 'v')])),
      pbUint(6, STRIPES.flat().length),
    ]),
    compress,
  );
  const ps = cat([
    pbUint(1, footer.length),
    pbUint(2, kind),
    pbUint(3, 262144),
    pbBytes(4, [0, 12]),
    pbUint(5, 0),
    pbStr(8000, 'ORC'),
  ]);
  parts.push(footer, ps, Buffer.from([ps.length]));
  return Buffer.concat(parts);
}

/** LZ4 block holding only literals (valid per the LZ4 block format). */
function lz4Literals(b: Buffer): Uint8Array {
  const len = b.length;
  const ext: number[] = [];
  if (len >= 15) {
    let rest = len - 15;
    while (rest >= 255) {
      ext.push(255);
      rest -= 255;
    }
    ext.push(rest);
  }
  return cat([[Math.min(len, 15) << 4, ...ext], b]);
}

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe('readOrcFile on a hand-built file', () => {
  beforeAll(ensureZstdEncoder);
  const expected = STRIPES.flat().map((r) => ({ ...r, g: r.g }));

  for (const [name, kind, compress] of [
    ['NONE', CompressionKind.NONE, undefined],
    ['ZLIB', CompressionKind.ZLIB, (b: Buffer) => deflateRawSync(b)],
    ['SNAPPY', CompressionKind.SNAPPY, (b: Buffer) => snappyCompress(b)],
    ['ZSTD', CompressionKind.ZSTD, (b: Buffer) => zstdCompress(b)],
    ['LZ4', CompressionKind.LZ4, lz4Literals],
  ] as [string, number, Compress][]) {
    it(`decodes every column kind, nulls and two stripes with ${name}`, () => {
      const f = readOrcFile(buildOrc(kind, compress), `hand-${name}.orc`);
      expect(f.compression).toBe(name);
      expect(f.numberOfRows).toBe(4);
      expect(Buffer.from(f.metadata.k!).toString()).toBe('v');
      expect(f.rows).toEqual(expected);
      expect(f.rows[0]!.g).toBeInstanceOf(Uint8Array);
      expect(typeof f.rows[3]!.c).toBe('object');
      expect((f.rows[3]!.c as bigint[])[0]).toBe(2n ** 63n - 1n);
    });
  }

  it('the timestamp column reads as epoch millis of the wall clock (2015-01-01T00:00:00.005Z)', () => {
    const f = readOrcFile(buildOrc(CompressionKind.NONE, undefined), 'ts.orc');
    expect(f.rows[0]!.l).toBe(BigInt(Date.parse('2015-01-01T00:00:00.005Z')));
    expect(f.rows[3]!.l).toBe(BigInt(Date.parse('2014-12-31T23:59:59.000Z')));
  });

  it('refuses unsupported types with Unsupported naming the file and the column', () => {
    const orc = buildOrc(CompressionKind.NONE, undefined);
    // turn column 15 (n.x, INT = 3) into DECIMAL (14): patch the last type message's kind byte in the footer
    const tail = readTail(orc, 'x.orc');
    const psLen = orc[orc.length - 1]!;
    const footerStart = orc.length - 1 - psLen - tail.postScript.footerLength;
    const footer = orc.subarray(footerStart, orc.length - 1 - psLen);
    const needle = Buffer.from([0x22, 0x02, 0x08, 0x03, 0x2a]); // type{kind=3} followed by the user metadata (field 5)
    const at = Buffer.from(footer).lastIndexOf(needle);
    expect(at).toBeGreaterThan(0);
    const bad = Buffer.from(orc);
    bad[footerStart + at + 3] = 14;
    const err = thrown(() => readOrcFile(bad, 'decimal.orc'));
    expect(isFloeError(err, 'Unsupported')).toBe(true);
    expect((err as Error).message).toMatch(/decimal\.orc.*n\.x.*DECIMAL/);
  });

  it('every truncation of the file is a FloeError naming the file, never a crash', () => {
    const orc = buildOrc(CompressionKind.ZLIB, (b) => deflateRawSync(b));
    for (let len = 0; len < orc.length; len++) {
      const err = thrown(() => readOrcFile(orc.subarray(0, len), 'cut.orc'));
      expect(isFloeError(err), `length ${len}: ${String(err)}`).toBe(true);
      expect((err as Error).message).toMatch(/cut\.orc/);
    }
  });

  it('single-byte corruptions either decode or fail with a FloeError (Corrupt/Unsupported)', () => {
    const orc = buildOrc(CompressionKind.NONE, undefined);
    let failures = 0;
    for (let i = 3; i < orc.length; i++) {
      for (const flip of [[0x01, 0x80, 0xff][i % 3]!]) {
        const bad = Buffer.from(orc);
        bad[i] = bad[i]! ^ flip;
        const err = thrown(() => readOrcFile(bad, 'flip.orc'));
        if (err === undefined) continue;
        failures++;
        expect(
          isFloeError(err, 'Corrupt') || isFloeError(err, 'Unsupported'),
          `byte ${i} ^ ${flip}: ${String(err)}`,
        ).toBe(true);
      }
    }
    expect(failures).toBeGreaterThan(0);
  });
});

// ------------------------------------------------------------------------------ the append_09 fixture

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const table = path.resolve(repoRoot, '../shared/fixtures/paimon-cpp/append_09');
const have = existsSync(path.join(table, 'manifest'));

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- untyped ORC records, checked field by field
const read = (name: string) => readOrcFile<Record<string, any>>(readFileSync(path.join(table, 'manifest', name)), name);
const snapshot = (id: number) =>
  JSON.parse(readFileSync(path.join(table, 'snapshot', `snapshot-${id}`), 'utf8')) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
/** Partition BinaryRow with one INT field: 4-byte arity, 8-byte null bitset, 8-byte slot holding the int (LE). */
const partitionInt = (b: Buffer) => b.readInt32LE(12);

describe('append_09 ORC manifests', () => {
  const dataFiles = new Set<string>();
  if (have) {
    for (const part of readdirSync(table).filter((d) => d.startsWith('f1='))) {
      for (const bucket of readdirSync(path.join(table, part)))
        for (const f of readdirSync(path.join(table, part, bucket))) dataFiles.add(`${part}/${bucket}/${f}`);
    }
  }

  it('every manifest file is ZSTD-compressed ORC with the Paimon field names', () => {
    const names = readdirSync(path.join(table, 'manifest'));
    expect(names).toHaveLength(15);
    for (const n of names) {
      const f = read(n);
      expect(f.compression).toBe('ZSTD');
      const root = f.types[0]!.fieldNames;
      if (n.startsWith('manifest-list-'))
        expect(root).toEqual([
          '_VERSION',
          '_FILE_NAME',
          '_FILE_SIZE',
          '_NUM_ADDED_FILES',
          '_NUM_DELETED_FILES',
          '_PARTITION_STATS',
          '_SCHEMA_ID',
        ]);
      else expect(root).toEqual(['_VERSION', '_KIND', '_PARTITION', '_BUCKET', '_TOTAL_BUCKETS', '_FILE']);
    }
  });

  it('manifest lists name existing manifests with their sizes on disk and their add/delete counts', () => {
    for (const n of readdirSync(path.join(table, 'manifest')).filter((x) => x.startsWith('manifest-list-'))) {
      for (const m of read(n).rows) {
        expect(m._VERSION).toBe(2);
        expect(m._SCHEMA_ID).toBe(0n);
        expect(m._FILE_SIZE).toBe(BigInt(statSync(path.join(table, 'manifest', m._FILE_NAME)).size));
        const entries = read(m._FILE_NAME).rows;
        expect(m._NUM_ADDED_FILES).toBe(BigInt(entries.filter((e) => e._KIND === 0).length));
        expect(m._NUM_DELETED_FILES).toBe(BigInt(entries.filter((e) => e._KIND === 1).length));
        // partition stats span the partitions of the entries (f1 is 10 or 20)
        const parts = entries.map((e) => partitionInt(e._PARTITION));
        expect(partitionInt(m._PARTITION_STATS._MIN_VALUES)).toBe(Math.min(...parts));
        expect(partitionInt(m._PARTITION_STATS._MAX_VALUES)).toBe(Math.max(...parts));
      }
    }
  });

  it('entries name data files that exist in their partition/bucket directory', () => {
    for (const n of readdirSync(path.join(table, 'manifest')).filter((x) => !x.startsWith('manifest-list-'))) {
      for (const e of read(n).rows) {
        expect(e._TOTAL_BUCKETS).toBe(2); // schema option bucket=2
        expect(
          dataFiles.has(`f1=${partitionInt(e._PARTITION)}/bucket-${e._BUCKET}/${e._FILE._FILE_NAME}`),
          e._FILE._FILE_NAME,
        ).toBe(true);
        expect(e._FILE._FILE_SIZE).toBe(
          BigInt(
            statSync(path.join(table, `f1=${partitionInt(e._PARTITION)}`, `bucket-${e._BUCKET}`, e._FILE._FILE_NAME))
              .size,
          ),
        );
      }
    }
  });

  it('row counts add up to each snapshot JSON totalRecordCount and deltaRecordCount', () => {
    const net = (list: string) => {
      let n = 0n;
      for (const m of read(list).rows)
        for (const e of read(m._FILE_NAME).rows) n += e._KIND === 0 ? e._FILE._ROW_COUNT : -e._FILE._ROW_COUNT;
      return n;
    };
    for (let id = 1; id <= 5; id++) {
      const s = snapshot(id);
      expect(net(s.baseManifestList) + net(s.deltaManifestList), `snapshot ${id} total`).toBe(
        BigInt(s.totalRecordCount),
      );
      expect(net(s.deltaManifestList), `snapshot ${id} delta`).toBe(BigInt(s.deltaRecordCount));
    }
  });

  it('the compaction delta deletes four files and adds one (snapshot 5 is COMPACT)', () => {
    const s = snapshot(5);
    expect(s.commitKind).toBe('COMPACT');
    const [m] = read(s.deltaManifestList).rows;
    const entries = read(m!._FILE_NAME).rows;
    expect(entries.filter((e) => e._KIND === 1)).toHaveLength(4);
    const added = entries.filter((e) => e._KIND === 0);
    expect(added).toHaveLength(1);
    expect(added[0]!._FILE._FILE_SOURCE).toBe(1); // COMPACT
    expect(added[0]!._FILE._ROW_COUNT).toBe(8n); // README: 8 rows of f1=10 have f2=0
  });

  it("value stats and creation time: Alice's file (README: Alice, 10, 1, 11.1)", () => {
    const first = read(snapshot(1).deltaManifestList).rows[0]!;
    const entries = read(first._FILE_NAME).rows;
    const alice = entries.find((e) => e._BUCKET === 0 && partitionInt(e._PARTITION) === 10)!;
    expect(alice._FILE._ROW_COUNT).toBe(1n);
    const min: Buffer = alice._FILE._VALUE_STATS._MIN_VALUES;
    // BinaryRow of 4 fields: 4-byte arity, 8-byte null bits, four 8-byte slots; "Alice" inline in slot 0, f3 in slot 3
    expect(min.subarray(12, 17).toString('latin1')).toBe('Alice');
    expect(min.readInt32LE(20)).toBe(10);
    expect(min.readInt32LE(28)).toBe(1);
    expect(min.readDoubleLE(36)).toBe(11.1);
    expect(alice._FILE._VALUE_STATS._NULL_COUNTS).toEqual([0n, 0n, 0n, 0n]);
    expect(alice._FILE._EMBEDDED_FILE_INDEX).toBeNull();
    expect(alice._FILE._EXTRA_FILES).toEqual([]);
    // _CREATION_TIME is the writer's wall clock (stripe footer: Asia/Shanghai, UTC+8) as if UTC; the file was
    // written after the schema and before snapshot 1 was committed
    const orc = readFileSync(path.join(table, 'manifest', first._FILE_NAME));
    const tail = readTail(orc, 'm');
    expect(readStripeFooter(orc, tail, tail.footer.stripes[0]!, 0, 'm').writerTimezone).toBe('Asia/Shanghai');
    const utc = Number(alice._FILE._CREATION_TIME) - 8 * 3600_000;
    const schemaTime = JSON.parse(readFileSync(path.join(table, 'schema', 'schema-0'), 'utf8')).timeMillis as number;
    expect(utc).toBeGreaterThan(schemaTime);
    expect(utc).toBeLessThanOrEqual(snapshot(1).timeMillis);
  });

  it('an empty manifest list (no stripes) reads as no rows', () => {
    const f = read(snapshot(1).baseManifestList);
    expect(f.numberOfRows).toBe(0);
    expect(f.rows).toEqual([]);
  });

  it('truncated fixture files are Corrupt naming the file', () => {
    const name = 'manifest-7008d4c0-b1b0-4237-ac6d-845b887efc92-1';
    const orc = readFileSync(path.join(table, 'manifest', name));
    for (const len of [0, 3, 100, orc.length - 300, orc.length - 30, orc.length - 1]) {
      const err = thrown(() => readOrcFile(orc.subarray(0, len), name));
      expect(isFloeError(err, 'Corrupt'), `length ${len}: ${String(err)}`).toBe(true);
      expect((err as Error).message).toContain(name);
    }
  });
});
