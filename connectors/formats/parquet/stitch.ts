/**
 * Row-group stitching: one Parquet file made of whole row groups of other Parquet files, copying every
 * column chunk's bytes (dictionary page + data pages) verbatim. Nothing is decoded or re-encoded; the
 * footer is the first input's with offsets moved to where the bytes now are.
 *
 * What moves: ColumnChunk.file_offset, ColumnMetaData.data_page_offset / dictionary_page_offset,
 * RowGroup.file_offset / total_compressed_size / ordinal, FileMetaData.num_rows / row_groups / created_by.
 * Page indexes are kept: column indexes hold no offsets and are copied; offset indexes hold absolute page
 * offsets and are re-serialised shifted. Bloom filters are copied when their length is recorded, dropped
 * otherwise (their end cannot be known without parsing them). index_page_offset is dropped (no writer
 * uses index pages). Everything else in the footer — statistics, encoding stats, size statistics, column
 * orders, fields newer than this code — is written back exactly as read (see stitch-thrift.ts).
 *
 * Every chunk's pages are walked before it is copied: the page headers must tile the chunk's byte range
 * exactly and their value counts must add up, so a footer that lies about sizes is never copied blindly.
 */
import { FloeError } from '../../../util/errors.js';
import { readParquetFooter } from './footer.js';
import { readThriftStruct, T, TStruct, writeThriftStruct, type TList, type TValue } from './stitch-thrift.js';
import type { ParquetFooter, ParquetSchemaNode } from './types.js';
import { DEFAULT_CREATED_BY } from './writer.js';

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]); // "PAR1"

// parquet.thrift field ids
const FMD = {
  version: 1,
  schema: 2,
  numRows: 3,
  rowGroups: 4,
  kv: 5,
  createdBy: 6,
  columnOrders: 7,
  encryption: 8,
  signingKey: 9,
};
const RG = { columns: 1, totalByteSize: 2, numRows: 3, fileOffset: 5, totalCompressed: 6, ordinal: 7 };
const CC = {
  filePath: 1,
  fileOffset: 2,
  metaData: 3,
  offsetIndexOffset: 4,
  offsetIndexLength: 5,
  columnIndexOffset: 6,
  columnIndexLength: 7,
  crypto: 8,
  encryptedMeta: 9,
};
const CMD = {
  codec: 4,
  numValues: 5,
  totalCompressed: 7,
  dataPageOffset: 9,
  indexPageOffset: 10,
  dictPageOffset: 11,
  bloomOffset: 14,
  bloomLength: 15,
};
const PAGE = { DATA: 0, INDEX: 1, DICTIONARY: 2, DATA_V2: 3 };

/** Encodings every Parquet reader of the last decade decodes (what parquet-mr's v1 writer and floe's writer emit). */
export const V1_ENCODINGS: readonly string[] = ['PLAIN', 'PLAIN_DICTIONARY', 'RLE', 'BIT_PACKED', 'RLE_DICTIONARY'];

export interface StitchInput {
  bytes: Uint8Array;
  /** Name used in messages. */
  file: string;
}

export interface StitchOptions {
  /** Name of the output in messages and in the returned footer. */
  file?: string;
  /** Default 'floe version 0.1.0' (parquet-mr trusts binary statistics only under "<app> version <x>"). */
  createdBy?: string;
  /** Footer key/value metadata; default: the first input's. */
  keyValueMetadata?: Map<string, string>;
}

export interface StitchedParquet {
  bytes: Uint8Array;
  footer: ParquetFooter;
  rowCount: number;
}

/** A parsed input: its typed footer (for copying) and its decoded footer (for decisions). */
export interface StitchSource {
  file: string;
  bytes: Uint8Array;
  footer: ParquetFooter;
  meta: TStruct;
}

function corrupt(file: string, detail: string): FloeError {
  return new FloeError('Corrupt', `Parquet file ${file} cannot be stitched: ${detail}`, { context: { file } });
}

/**
 * Parses an input's footer twice: decoded (readParquetFooter) and as a typed thrift tree for the copy.
 * Both are parsed from a copy of the footer alone, so the byte arrays inside them (statistics, names) do
 * not keep the whole input file alive while an output is being assembled.
 */
export function openStitchSource(bytes: Uint8Array, file: string): StitchSource {
  readParquetFooter(bytes, file); // validates magic and footer length against the real file
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const len = view.getUint32(bytes.byteLength - 8, true);
  const framed = new Uint8Array(len + 12);
  framed.set(MAGIC);
  framed.set(bytes.subarray(bytes.byteLength - 8 - len), 4);
  const footer = { ...readParquetFooter(framed, file), fileSize: bytes.byteLength };
  let meta: TStruct;
  try {
    meta = readThriftStruct(framed, 4, 4 + len).value;
  } catch (e) {
    throw corrupt(file, `unreadable footer (${e instanceof Error ? e.message : String(e)})`);
  }
  return { file, bytes, footer, meta };
}

// ---------------------------------------------------------------- compatibility

/**
 * The schema as readers see it, one string: names, field ids, repetition, physical and logical types.
 * `loose` compares a file against floe's own writer output for the table schema, ignoring what readers
 * resolving by field id do not look at: names of id-less groups (list/map wrappers differ between
 * writers), converted types next to a logical type, and INTEGER annotations that restate the physical
 * width.
 */
export function schemaSignature(nodes: ParquetSchemaNode[], loose = false): string {
  const sig = (n: ParquetSchemaNode): unknown => {
    let logical: unknown = n.logicalType;
    const lt = n.logicalType;
    if (
      loose &&
      lt?.type === 'INTEGER' &&
      lt.isSigned &&
      ((n.physicalType === 'INT32' && lt.bitWidth === 32) || (n.physicalType === 'INT64' && lt.bitWidth === 64))
    ) {
      logical = undefined;
    }
    const keepConverted = !loose || logical === undefined;
    const keepDecimalParams = !loose || lt?.type !== 'DECIMAL';
    return [
      loose && n.fieldId === undefined ? '' : n.name,
      n.fieldId ?? null,
      n.repetition,
      n.physicalType ?? null,
      n.typeLength ?? null,
      logical === undefined ? null : JSON.stringify(logical),
      keepConverted ? (n.convertedType ?? null) : null,
      keepDecimalParams ? (n.precision ?? null) : null,
      keepDecimalParams ? (n.scale ?? null) : null,
      n.children ? n.children.map(sig) : null,
    ];
  };
  return JSON.stringify(nodes.map(sig));
}

function columnOrdersKey(meta: TStruct): string {
  const v = meta.get(FMD.columnOrders);
  if (v === undefined) return '';
  return Buffer.from(writeThriftStruct(new TStruct([{ id: 1, type: T.LIST, value: v }]))).toString('base64');
}

export interface StitchRules {
  /** Codecs (Parquet names, e.g. 'ZSTD') chunks may use; any when omitted. */
  codecs?: readonly string[];
  /** Encodings chunks may use (default V1_ENCODINGS). */
  encodings?: readonly string[];
  /** Whether DATA_PAGE_V2 pages may be copied (default false: floe and Iceberg's default writer use v1 pages). */
  allowDataPageV2?: boolean;
}

/** Writers whose statistics readers distrust or that predate column orders (PARQUET-251, PARQUET-686). */
function writerProblem(createdBy: string | undefined): string | undefined {
  if (!createdBy) return 'created_by is missing (statistics of unknown writers are not vouched for)';
  const m = /^parquet-mr(?: version (\d+)\.(\d+))?/i.exec(createdBy);
  if (m) {
    if (!m[1]) return `written by "${createdBy}" without a version`;
    if (Number(m[1]) === 1 && Number(m[2]) < 10) return `written by ${createdBy} (before 1.10, statistics unreliable)`;
  }
  const cpp = /^parquet-cpp version (\d+)\.(\d+)/i.exec(createdBy);
  if (cpp && Number(cpp[1]) === 1 && Number(cpp[2]) < 5)
    return `written by ${createdBy} (before 1.5, statistics unreliable)`;
  return undefined;
}

/**
 * Why this file's chunks cannot be copied under `rules`, or undefined when they can. Looks at the
 * footer only; the page walk happens while copying.
 */
export function stitchProblem(src: StitchSource, rules: StitchRules = {}): string | undefined {
  if (src.meta.has(FMD.encryption) || src.meta.has(FMD.signingKey)) return 'encrypted footer';
  const w = writerProblem(src.footer.createdBy);
  if (w) return w;
  const encodings = new Set(rules.encodings ?? V1_ENCODINGS);
  for (const [i, rg] of (src.meta.list(FMD.rowGroups)?.items ?? []).entries()) {
    for (const cc of (rg as TStruct).list(RG.columns)?.items ?? []) {
      const chunk = cc as TStruct;
      if (chunk.has(CC.filePath)) return `row group ${i} keeps a column chunk in another file`;
      if (chunk.has(CC.crypto) || chunk.has(CC.encryptedMeta)) return 'encrypted column chunk';
    }
    const decoded = src.footer.rowGroups[i]!;
    for (const c of decoded.columns) {
      if (rules.codecs && !rules.codecs.includes(c.codec))
        return `column ${c.path.join('.')} uses codec ${c.codec}, not ${rules.codecs.join('/')}`;
      const bad = c.encodings.find((e) => !encodings.has(e));
      if (bad) return `column ${c.path.join('.')} uses encoding ${bad}`;
      if (!rules.allowDataPageV2 && c.pageTypes?.includes('DATA_PAGE_V2'))
        return `column ${c.path.join('.')} has v2 data pages`;
    }
  }
  return undefined;
}

/** Why `b` cannot join a file stitched from `a`, or undefined. */
export function incompatibility(a: StitchSource, b: StitchSource): string | undefined {
  if (schemaSignature(a.footer.schema) !== schemaSignature(b.footer.schema))
    return `schema of ${b.file} differs from ${a.file}`;
  if (columnOrdersKey(a.meta) !== columnOrdersKey(b.meta)) return `column orders of ${b.file} differ from ${a.file}`;
  return undefined;
}

// ---------------------------------------------------------------- copying

interface PendingIndex {
  chunk: TStruct;
  columnIndex?: Uint8Array;
  offsetIndex?: TStruct;
  bloom?: Uint8Array;
}

function i64(v: TValue | undefined): number | undefined {
  return typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : undefined;
}

/** Builds one stitched file from row groups added in order. */
export class ParquetStitcher {
  private readonly parts: Uint8Array[] = [MAGIC];
  private size = MAGIC.byteLength;
  private readonly rowGroups: TStruct[] = [];
  private readonly pending: PendingIndex[] = [];
  /** The first input without its bytes (only its footer is needed later). */
  private first: StitchSource | undefined;
  private rows = 0;
  private version = 1;

  constructor(private readonly opts: StitchOptions = {}) {}

  get rowCount(): number {
    return this.rows;
  }
  get rowGroupCount(): number {
    return this.rowGroups.length;
  }
  /** Bytes of copied row groups so far (the file will add indexes and a footer). */
  get byteSize(): number {
    return this.size;
  }

  /** Appends row groups of `src` (all by default); throws when `src` does not match the first input. */
  add(src: StitchSource, rowGroups?: readonly number[]): void {
    if (!this.first) this.first = { ...src, bytes: new Uint8Array(0) };
    else {
      const why = incompatibility(this.first, src);
      if (why)
        throw new FloeError(
          'InvalidArgument',
          `cannot stitch ${src.file} into ${this.opts.file ?? 'the output'}: ${why}`,
          { context: { file: src.file } },
        );
    }
    this.version = Math.max(this.version, src.meta.int(FMD.version) ?? 1);
    const rawGroups = src.meta.list(FMD.rowGroups)?.items ?? [];
    for (const index of rowGroups ?? rawGroups.map((_, i) => i)) {
      const rg = rawGroups[index] as TStruct | undefined;
      if (!rg)
        throw new FloeError('InvalidArgument', `row group ${index} out of range for ${src.file}`, {
          context: { file: src.file },
        });
      this.addRowGroup(src, rg, index);
    }
  }

  private addRowGroup(src: StitchSource, rg: TStruct, rgIndex: number): void {
    const out = rg.clone();
    const columns = out.list(RG.columns)!;
    const decoded = src.footer.rowGroups[rgIndex]!;
    let firstStart: number | undefined;
    let compressed = 0;
    columns.items.forEach((item, leaf) => {
      const chunk = item as TStruct;
      const md = chunk.struct(CC.metaData)!;
      const info = decoded.columns[leaf]!;
      const start = info.startOffset;
      const length = info.totalCompressedSize;
      const where = `${src.file} row group ${rgIndex} column ${info.path.join('.')}`;
      if (start < 4 || start + length > src.bytes.byteLength - 8 - src.footer.metadataLength) {
        throw corrupt(src.file, `${where} lies outside the data area`);
      }
      walkPages(src.bytes, start, length, info.numValues, where, src.file);
      const newStart = this.size;
      const delta = newStart - start;
      this.push(src.bytes.slice(start, start + length)); // a copy: the input buffer may be released
      compressed += length;
      firstStart ??= newStart;

      md.set(CMD.dataPageOffset, T.I64, BigInt(info.dataPageOffset + delta));
      if (
        info.dictionaryPageOffset !== undefined &&
        info.dictionaryPageOffset === start &&
        start < info.dataPageOffset
      ) {
        md.set(CMD.dictPageOffset, T.I64, BigInt(info.dictionaryPageOffset + delta));
      } else md.delete(CMD.dictPageOffset);
      md.delete(CMD.indexPageOffset);
      const fo = i64(chunk.get(CC.fileOffset));
      // deprecated field, required on the wire; writers disagree on what it points at, so keep its place relative to the chunk
      chunk.set(
        CC.fileOffset,
        T.I64,
        BigInt(fo !== undefined && fo >= start && fo <= start + length ? fo + delta : newStart),
      );

      const pending: PendingIndex = { chunk };
      pending.columnIndex = this.indexBytes(src, chunk, CC.columnIndexOffset, CC.columnIndexLength);
      const off = this.indexBytes(src, chunk, CC.offsetIndexOffset, CC.offsetIndexLength);
      if (off) pending.offsetIndex = shiftOffsetIndex(off, start, length, delta, where, src.file);
      const bloomOffset = i64(md.get(CMD.bloomOffset));
      const bloomLength = i64(md.get(CMD.bloomLength));
      if (
        bloomOffset !== undefined &&
        bloomLength !== undefined &&
        bloomOffset >= 4 &&
        bloomOffset + bloomLength <= src.bytes.byteLength - 8
      ) {
        pending.bloom = src.bytes.slice(bloomOffset, bloomOffset + bloomLength);
      }
      md.delete(CMD.bloomOffset);
      md.delete(CMD.bloomLength);
      this.pending.push(pending);
    });
    for (const item of columns.items) {
      const chunk = item as TStruct;
      chunk.struct(CC.metaData)!.fields.sort((a, b) => a.id - b.id);
    }
    out.set(RG.fileOffset, T.I64, BigInt(firstStart ?? this.size));
    out.set(RG.totalCompressed, T.I64, BigInt(compressed));
    const ordinal = this.rowGroups.length;
    if (ordinal <= 0x7fff) out.set(RG.ordinal, T.I16, ordinal);
    else out.delete(RG.ordinal);
    this.rowGroups.push(out);
    this.rows += decoded.numRows;
  }

  /** The bytes of an index referenced by (offset, length) fields, removing the fields; undefined when absent or invalid. */
  private indexBytes(
    src: StitchSource,
    chunk: TStruct,
    offsetField: number,
    lengthField: number,
  ): Uint8Array | undefined {
    const offset = i64(chunk.get(offsetField));
    const length = i64(chunk.get(lengthField));
    chunk.delete(offsetField);
    chunk.delete(lengthField);
    if (
      offset === undefined ||
      length === undefined ||
      offset < 4 ||
      length <= 0 ||
      offset + length > src.bytes.byteLength - 8 - src.footer.metadataLength
    )
      return undefined;
    return src.bytes.slice(offset, offset + length);
  }

  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.size += b.byteLength;
  }

  finish(): StitchedParquet {
    const file = this.opts.file ?? '<stitched>';
    if (!this.first) throw new FloeError('InvalidArgument', `nothing to stitch into ${file}`);
    // Page indexes after all row groups, as parquet-mr and arrow-rs lay them out: column indexes, then offset indexes.
    for (const p of this.pending) {
      if (!p.columnIndex) continue;
      p.chunk.set(CC.columnIndexOffset, T.I64, BigInt(this.size));
      p.chunk.set(CC.columnIndexLength, T.I32, p.columnIndex.byteLength);
      this.push(p.columnIndex);
    }
    for (const p of this.pending) {
      if (!p.offsetIndex) continue;
      const bytes = writeThriftStruct(p.offsetIndex);
      p.chunk.set(CC.offsetIndexOffset, T.I64, BigInt(this.size));
      p.chunk.set(CC.offsetIndexLength, T.I32, bytes.byteLength);
      this.push(bytes);
    }
    for (const p of this.pending) {
      if (!p.bloom) continue;
      const md = p.chunk.struct(CC.metaData)!;
      md.set(CMD.bloomOffset, T.I64, BigInt(this.size));
      md.set(CMD.bloomLength, T.I32, p.bloom.byteLength);
      this.push(p.bloom);
    }
    // fields set above may have been appended out of order; writers emit ascending ids, so do we
    for (const rg of this.rowGroups) {
      rg.fields.sort((a, b) => a.id - b.id);
      for (const cc of rg.list(RG.columns)!.items) (cc as TStruct).fields.sort((a, b) => a.id - b.id);
    }
    for (const p of this.pending) p.chunk.struct(CC.metaData)!.fields.sort((a, b) => a.id - b.id);
    const meta = this.first.meta.clone();
    meta.set(FMD.version, T.I32, this.version);
    meta.set(FMD.numRows, T.I64, BigInt(this.rows));
    meta.set(FMD.rowGroups, T.LIST, {
      kind: 'list',
      wire: T.LIST,
      elemType: T.STRUCT,
      items: this.rowGroups,
    } satisfies TList);
    const enc = new TextEncoder();
    meta.set(FMD.createdBy, T.BINARY, enc.encode(this.opts.createdBy ?? DEFAULT_CREATED_BY));
    if (this.opts.keyValueMetadata) {
      const items = [...this.opts.keyValueMetadata].map(
        ([k, v]) =>
          new TStruct([
            { id: 1, type: T.BINARY, value: enc.encode(k) },
            { id: 2, type: T.BINARY, value: enc.encode(v) },
          ]),
      );
      if (items.length) meta.set(FMD.kv, T.LIST, { kind: 'list', wire: T.LIST, elemType: T.STRUCT, items });
      else meta.delete(FMD.kv);
    }
    meta.fields.sort((a, b) => a.id - b.id);
    const footerBytes = writeThriftStruct(meta);
    const tail = new Uint8Array(8);
    new DataView(tail.buffer).setUint32(0, footerBytes.byteLength, true);
    tail.set(MAGIC, 4);
    this.push(footerBytes);
    this.push(tail);
    const bytes = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      bytes.set(p, at);
      at += p.byteLength;
    }
    this.parts.length = 0;
    const footer = readParquetFooter(bytes, file);
    if (footer.numRows !== this.rows)
      throw new FloeError('Internal', `stitched ${file} says ${footer.numRows} rows, expected ${this.rows}`, {
        context: { file },
      });
    return { bytes, footer, rowCount: this.rows };
  }
}

/**
 * Walks the page headers of one chunk: they must tile [start, start + length) exactly, and the data
 * pages' value counts must add up to the chunk's. Anything else means the footer cannot be trusted for a
 * blind copy.
 */
function walkPages(
  bytes: Uint8Array,
  start: number,
  length: number,
  numValues: number,
  where: string,
  file: string,
): void {
  const end = start + length;
  let at = start;
  let values = 0;
  while (at < end) {
    let header: TStruct;
    try {
      const r = readThriftStruct(bytes, at, end);
      header = r.value;
      at = r.end;
    } catch (e) {
      throw corrupt(file, `${where}: unreadable page header at ${at} (${e instanceof Error ? e.message : String(e)})`);
    }
    const type = header.int(1);
    const size = header.int(3);
    if (type === undefined || size === undefined || size < 0)
      throw corrupt(file, `${where}: page header at ${at} without type or size`);
    if (type === PAGE.DATA) values += header.struct(5)?.int(1) ?? NaN;
    else if (type === PAGE.DATA_V2) values += header.struct(8)?.int(1) ?? NaN;
    else if (type !== PAGE.DICTIONARY && type !== PAGE.INDEX)
      throw corrupt(file, `${where}: unknown page type ${type}`);
    at += size;
  }
  if (at !== end) throw corrupt(file, `${where}: pages end at ${at}, the chunk at ${end}`);
  if (values !== numValues) throw corrupt(file, `${where}: pages hold ${values} values, the chunk says ${numValues}`);
}

/** OffsetIndex {1: list<PageLocation {1: offset, 2: size, 3: first_row}>, …} with offsets moved by `delta`. */
function shiftOffsetIndex(
  bytes: Uint8Array,
  start: number,
  length: number,
  delta: number,
  where: string,
  file: string,
): TStruct | undefined {
  let index: TStruct;
  try {
    const r = readThriftStruct(bytes);
    if (r.end !== bytes.byteLength) return undefined;
    index = r.value;
  } catch {
    return undefined; // an unreadable optional index is dropped, not fatal
  }
  const locations = index.list(1);
  if (!locations) return undefined;
  for (const loc of locations.items) {
    if (!(loc instanceof TStruct)) return undefined;
    const off = i64(loc.get(1));
    if (off === undefined || off < start || off >= start + length) {
      throw corrupt(file, `${where}: offset index points at ${off}, outside the chunk`);
    }
    loc.set(1, T.I64, BigInt(off + delta));
  }
  return index;
}

/** Stitches whole inputs into one file; throws when they cannot share a file (see incompatibility / stitchProblem). */
export function stitchParquet(
  inputs: readonly StitchInput[],
  opts: StitchOptions & { rules?: StitchRules } = {},
): StitchedParquet {
  const s = new ParquetStitcher(opts);
  for (const input of inputs) {
    const src = openStitchSource(input.bytes, input.file);
    if (opts.rules) {
      const why = stitchProblem(src, opts.rules);
      if (why)
        throw new FloeError('InvalidArgument', `cannot stitch ${input.file}: ${why}`, {
          context: { file: input.file },
        });
    }
    s.add(src);
  }
  return s.finish();
}
