/**
 * Reads a whole ORC file (held in memory) into row objects. Built for the small files Paimon writes as
 * manifests and manifest lists, so it favours clarity over speed: every column of every stripe is decoded
 * eagerly into JS values.
 *
 * Values: boolean → boolean; tinyint/smallint/int/date → number; bigint → bigint; float/double → number;
 * string/varchar/char → string; binary → Buffer; timestamp → bigint millis (wall clock as if UTC, the way
 * Paimon's Avro manifests carry `_CREATION_TIME`); struct → object by field name; list → array; map → plain
 * object when keys are strings, otherwise a Map. Nulls are null. Decimal and union are refused.
 */
import { FloeError } from '../../../util/errors.js';
import { decompressOrc, compressionName } from './compression.js';
import { ByteCursor, decodeBooleanRle, decodeByteRle, decodeIntRleV1, decodeIntRleV2 } from './rle.js';
import {
  EncodingKind,
  StreamKind,
  TypeKind,
  readStripeFooter,
  readTail,
  typeKindName,
  type OrcTail,
  type OrcType,
  type StripeFooter,
} from './tail.js';

export interface OrcFile<T = Record<string, unknown>> {
  /** Name of the generic compression (NONE, ZLIB, SNAPPY, LZ4, ZSTD). */
  compression: string;
  /** Flattened type tree; types[0] is the root. */
  types: OrcType[];
  /** User metadata from the footer. */
  metadata: Record<string, Uint8Array>;
  numberOfRows: number;
  rows: T[];
}

/** Seconds from 1970-01-01 to 2015-01-01, ORC's timestamp base. */
const ORC_TIMESTAMP_BASE_SECONDS = 1_420_070_400n;

const SUPPORTED = new Set<number>([
  TypeKind.BOOLEAN,
  TypeKind.BYTE,
  TypeKind.SHORT,
  TypeKind.INT,
  TypeKind.LONG,
  TypeKind.FLOAT,
  TypeKind.DOUBLE,
  TypeKind.STRING,
  TypeKind.BINARY,
  TypeKind.TIMESTAMP,
  TypeKind.TIMESTAMP_INSTANT,
  TypeKind.LIST,
  TypeKind.MAP,
  TypeKind.STRUCT,
  TypeKind.DATE,
  TypeKind.VARCHAR,
  TypeKind.CHAR,
]);

/** Decodes every row of an ORC file. Throws Corrupt or Unsupported naming `file`. */
export function readOrcFile<T = Record<string, unknown>>(data: Uint8Array, file: string): OrcFile<T> {
  const tail = readTail(data, file);
  const { types } = tail.footer;
  for (const t of types) {
    if (!SUPPORTED.has(t.kind)) {
      const path = columnPath(types, t.id);
      throw new FloeError(
        'Unsupported',
        `ORC file ${file} has column ${path} of type ${typeKindName(t.kind)}, which this reader does not support`,
        {
          context: { file, column: path, type: typeKindName(t.kind) },
        },
      );
    }
  }
  const rows: unknown[] = [];
  let rowsInStripes = 0;
  for (const [i, stripe] of tail.footer.stripes.entries()) {
    const sf = readStripeFooter(data, tail, stripe, i, file);
    const reader = new StripeReader(data, tail, sf, i, file);
    for (const v of reader.column(0, stripe.numberOfRows)) rows.push(v);
    rowsInStripes += stripe.numberOfRows;
  }
  if (rowsInStripes !== tail.footer.numberOfRows) {
    throw new FloeError(
      'Corrupt',
      `corrupt ORC file ${file}: stripes hold ${rowsInStripes} rows, the footer says ${tail.footer.numberOfRows}`,
      {
        context: { file },
      },
    );
  }
  return {
    compression: compressionName(tail.postScript.compression),
    types,
    metadata: tail.footer.metadata,
    numberOfRows: tail.footer.numberOfRows,
    rows: rows as T[],
  };
}

/** Dotted field path of a column id, for messages ("_FILE._KEY_STATS"). */
function columnPath(types: OrcType[], id: number): string {
  const names: string[] = [];
  let cur = id;
  while (cur !== 0) {
    const parent = types.find((t) => t.subtypes.includes(cur));
    if (!parent) break;
    const idx = parent.subtypes.indexOf(cur);
    names.unshift(
      parent.kind === TypeKind.STRUCT
        ? parent.fieldNames[idx]!
        : parent.kind === TypeKind.LIST
          ? 'element'
          : idx === 0
            ? 'key'
            : 'value',
    );
    cur = parent.id;
  }
  return names.length ? names.join('.') : '<root>';
}

const STREAM_NAMES = ['PRESENT', 'DATA', 'LENGTH', 'DICTIONARY_DATA', 'DICTIONARY_COUNT', 'SECONDARY'];

class StripeReader {
  private readonly streams = new Map<string, { offset: number; length: number }>();

  constructor(
    private readonly data: Uint8Array,
    private readonly tail: OrcTail,
    private readonly footer: StripeFooter,
    private readonly index: number,
    private readonly file: string,
  ) {
    for (const s of footer.streams) this.streams.set(`${s.column}:${s.kind}`, { offset: s.offset, length: s.length });
    if (footer.columns.length < tail.footer.types.length) {
      this.fail(
        0,
        `stripe footer has ${footer.columns.length} column encodings for ${tail.footer.types.length} columns`,
      );
    }
  }

  private label(col: number, stream?: number): string {
    const s = stream === undefined ? '' : ` ${STREAM_NAMES[stream] ?? `stream ${stream}`}`;
    return `stripe ${this.index} column ${columnPath(this.tail.footer.types, col)}${s}`;
  }

  private fail(col: number, msg: string): never {
    throw new FloeError('Corrupt', `corrupt ORC file ${this.file}: ${this.label(col)}: ${msg}`, {
      context: { file: this.file },
    });
  }

  /** The decompressed bytes of one stream as a cursor; undefined when the stripe has no such stream. */
  private stream(col: number, kind: number, required: boolean): ByteCursor | undefined {
    const s = this.streams.get(`${col}:${kind}`);
    if (!s) {
      if (required) this.fail(col, `missing ${STREAM_NAMES[kind]} stream`);
      return undefined;
    }
    const what = this.label(col, kind);
    const raw = this.data.subarray(s.offset, s.offset + s.length);
    const { compression, compressionBlockSize } = this.tail.postScript;
    return new ByteCursor(decompressOrc(compression, raw, compressionBlockSize, this.file, what), this.file, what);
  }

  private encoding(col: number): number {
    return this.footer.columns[col]!.kind;
  }

  /** Integers of a DATA/LENGTH/SECONDARY stream in the RLE version the column encoding names. */
  private ints(col: number, kind: number, count: number, signed: boolean): bigint[] {
    const c = this.stream(col, kind, true)!;
    const enc = this.encoding(col);
    if (enc === EncodingKind.DIRECT || enc === EncodingKind.DICTIONARY) return decodeIntRleV1(c, count, signed);
    if (enc === EncodingKind.DIRECT_V2 || enc === EncodingKind.DICTIONARY_V2) return decodeIntRleV2(c, count, signed);
    this.fail(col, `unknown column encoding ${enc}`);
  }

  private lengths(col: number, count: number, kind: number = StreamKind.LENGTH): number[] {
    return this.ints(col, kind, count, false).map((v) => {
      if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail(col, `length ${v} is impossible`);
      return Number(v);
    });
  }

  /** Decodes `count` slots of column `col` (nulls included) into JS values. */
  column(col: number, count: number): unknown[] {
    // no encoding packs more than ~520 values into a byte (boolean runs), so larger counts are corrupt lengths;
    // refusing them here keeps a bad length from allocating gigabytes (e.g. for a list of empty structs)
    if (count > 1024 * this.data.length)
      this.fail(col, `${count} values cannot fit a file of ${this.data.length} bytes`);
    const type = this.tail.footer.types[col]!;
    const presentStream = this.stream(col, StreamKind.PRESENT, false);
    const present = presentStream ? decodeBooleanRle(presentStream, count) : undefined;
    const nonNull = present ? present.reduce((n, p) => n + (p ? 1 : 0), 0) : count;
    const values = this.values(type, nonNull);
    if (!present) return values;
    const out = new Array<unknown>(count);
    let j = 0;
    for (let i = 0; i < count; i++) out[i] = present[i] ? values[j++] : null;
    return out;
  }

  /** The `n` non-null values of a column. */
  private values(type: OrcType, n: number): unknown[] {
    const col = type.id;
    switch (type.kind) {
      case TypeKind.BOOLEAN:
        return decodeBooleanRle(this.stream(col, StreamKind.DATA, true)!, n);
      case TypeKind.BYTE:
        return Array.from(decodeByteRle(this.stream(col, StreamKind.DATA, true)!, n), (b) => (b < 0x80 ? b : b - 256));
      case TypeKind.SHORT:
      case TypeKind.INT:
      case TypeKind.DATE:
        return this.ints(col, StreamKind.DATA, n, true).map(Number);
      case TypeKind.LONG:
        return this.ints(col, StreamKind.DATA, n, true);
      case TypeKind.FLOAT:
      case TypeKind.DOUBLE: {
        const size = type.kind === TypeKind.FLOAT ? 4 : 8;
        const c = this.stream(col, StreamKind.DATA, true)!;
        const bytes = c.bytes(n * size);
        const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const out = new Array<number>(n);
        for (let i = 0; i < n; i++) out[i] = size === 4 ? view.getFloat32(i * 4, true) : view.getFloat64(i * 8, true);
        return out;
      }
      case TypeKind.STRING:
      case TypeKind.VARCHAR:
      case TypeKind.CHAR:
        return this.blobs(col, n).map((b) => b.toString('utf8'));
      case TypeKind.BINARY:
        return this.blobs(col, n);
      case TypeKind.TIMESTAMP:
      case TypeKind.TIMESTAMP_INSTANT:
        return this.timestamps(col, n);
      case TypeKind.STRUCT: {
        const children = type.subtypes.map((s) => this.column(s, n));
        const out = new Array<Record<string, unknown>>(n);
        for (let i = 0; i < n; i++) {
          const r: Record<string, unknown> = {};
          type.fieldNames.forEach((name, k) => (r[name] = children[k]![i]));
          out[i] = r;
        }
        return out;
      }
      case TypeKind.LIST: {
        const lens = this.lengths(col, n);
        const items = this.column(
          type.subtypes[0]!,
          lens.reduce((a, b) => a + b, 0),
        );
        let at = 0;
        return lens.map((len) => items.slice(at, (at += len)));
      }
      case TypeKind.MAP: {
        const lens = this.lengths(col, n);
        const total = lens.reduce((a, b) => a + b, 0);
        const keys = this.column(type.subtypes[0]!, total);
        const vals = this.column(type.subtypes[1]!, total);
        const stringKeys = this.tail.footer.types[type.subtypes[0]!]!.kind === TypeKind.STRING;
        let at = 0;
        return lens.map((len) => {
          if (stringKeys) {
            const o: Record<string, unknown> = {};
            for (let k = at; k < at + len; k++) o[String(keys[k])] = vals[k];
            at += len;
            return o;
          }
          const m = new Map<unknown, unknown>();
          for (let k = at; k < at + len; k++) m.set(keys[k], vals[k]);
          at += len;
          return m;
        });
      }
      default:
        this.fail(col, `type ${typeKindName(type.kind)} cannot be decoded`);
    }
  }

  /** String/binary payloads: direct (DATA + LENGTH) or dictionary (DATA indexes into DICTIONARY_DATA + LENGTH). */
  private blobs(col: number, n: number): Buffer[] {
    const enc = this.encoding(col);
    const slice = (c: ByteCursor, lens: number[]) =>
      lens.map((len) => {
        const b = c.bytes(len);
        return Buffer.from(b.buffer, b.byteOffset, b.byteLength);
      });
    if (enc === EncodingKind.DIRECT || enc === EncodingKind.DIRECT_V2) {
      const lens = this.lengths(col, n);
      return slice(this.stream(col, StreamKind.DATA, true)!, lens);
    }
    if (enc === EncodingKind.DICTIONARY || enc === EncodingKind.DICTIONARY_V2) {
      const size = this.footer.columns[col]!.dictionarySize ?? 0;
      const dict =
        size === 0 ? [] : slice(this.stream(col, StreamKind.DICTIONARY_DATA, true)!, this.lengths(col, size));
      return this.ints(col, StreamKind.DATA, n, false).map((ix) => {
        if (ix >= BigInt(dict.length)) this.fail(col, `dictionary index ${ix} outside a dictionary of ${dict.length}`);
        return dict[Number(ix)]!;
      });
    }
    this.fail(col, `unknown column encoding ${enc}`);
  }

  /**
   * DATA holds seconds since 2015-01-01 00:00:00 (of the writer's wall clock for TIMESTAMP, UTC for
   * TIMESTAMP_INSTANT), SECONDARY the nanoseconds with trailing decimal zeros folded into the low 3 bits.
   * Both come out as epoch millis of that clock.
   */
  private timestamps(col: number, n: number): bigint[] {
    const secs = this.ints(col, StreamKind.DATA, n, true);
    const nanos = this.ints(col, StreamKind.SECONDARY, n, false);
    return secs.map((s, i) => {
      const raw = nanos[i]!;
      const zeros = Number(raw & 7n);
      let ns = raw >> 3n;
      if (zeros !== 0) ns *= 10n ** BigInt(zeros + 1);
      let millis = (s + ORC_TIMESTAMP_BASE_SECONDS) * 1000n + ns / 1_000_000n;
      // writers truncate seconds toward zero, so before 1970 a fractional second sits one second too high
      if (millis < 0n && ns > 0n) millis -= 1000n;
      return millis;
    });
  }
}
