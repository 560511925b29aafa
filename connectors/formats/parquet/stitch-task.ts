/**
 * Stitching one rewrite task: decide from the inputs' footers alone (ranged reads, no data) whether
 * copying row groups is safe, then copy them into outputs that roll at the target file size.
 *
 * Safe means: every input is Parquet with the schema floe would write for the table (same field ids,
 * names, types, repetition), all inputs share one schema and column order, every chunk uses the table's
 * codec and encodings every reader decodes, the writer's statistics are trustworthy, required columns
 * (v3 row lineage) are already non-null in every row group, and row groups are large enough that copying
 * them does not hand readers many small row groups. Format-specific conditions (no deletes apply, data
 * files only) are the caller's.
 *
 * Codecs: Parquet records the codec per column chunk, so a file mixing codecs is legal and every reader
 * handles it. We still require the table's codec: a rewrite is where a changed
 * `write.parquet.compression-codec` takes effect, and a stitched file should not differ in kind from a
 * rewritten one.
 *
 * Small row groups are not merged (issue 11.4, decided with numbers). Engine-written small files have small
 * row groups (a 2.2 MB PyIceberg file is one ~2 MB row group), below `min-row-group-bytes`, so they take the
 * decode/encode path. Merging them without a full decode would mean concatenating pages into one column
 * chunk, but a chunk holds at most one dictionary page and pyarrow dictionary-encodes every column by
 * default: on a PyIceberg-written table (bench/gen_table.py, 16 files, 240 column chunks) 93 % of chunks
 * and ~100 % of bytes are RLE_DICTIONARY (only booleans are plain). A merge would have to build one
 * dictionary per chunk and re-encode every page's indices: decompress, decode the RLE/bit-packed runs, remap,
 * re-encode, recompress. Decompressing and recompressing the pages alone took 41 % of the CPU time of floe's
 * whole decode/encode rewrite of those files (1.66 s vs 4.04 s, scripts/stitch-merge-cost.ts), before the
 * per-value index remap — which in JS would cost about what arrow-rs's decode does — and high-cardinality
 * columns (ids, notes, scores) overflow the dictionary limit when merged, which forces PLAIN, i.e. a full
 * decode anyway. So at best a fraction of the rewrite would be saved, for a second encoder to maintain; the
 * worker pool (src/core/execution/worker-pool.ts) spends the cores on the decode/encode path instead. Copying the
 * small row groups unmerged is refused because it hands readers the many small row groups compaction removes.
 */
import * as arrow from 'apache-arrow';
import { FloeError } from '../../../util/errors.js';
import { checkFooterLength, parquetCorrupt } from './footer.js';
import { floatFieldMetrics, floatMetricsFromInputs, type InputFileStats } from './stitch-metrics.js';
import {
  incompatibility,
  openStitchSource,
  ParquetStitcher,
  schemaSignature,
  stitchProblem,
  V1_ENCODINGS,
  type StitchRules,
  type StitchSource,
} from './stitch.js';
import type { ParquetCodec, ParquetFooter, ParquetSchemaNode, WrittenParquet } from './types.js';
import { writeParquet } from './writer.js';

export interface StitchPolicy {
  enabled: boolean;
  /** An input whose row groups average fewer uncompressed bytes than this is not stitched. */
  minRowGroupBytes: number;
  rules: StitchRules;
  /** The property was set explicitly: say why a task was not stitched. */
  explicit: boolean;
}

export const STITCH_ENABLED = 'floe.rewrite.stitch.enabled';
export const STITCH_MIN_ROW_GROUP_BYTES = 'floe.rewrite.stitch.min-row-group-bytes';
export const STITCH_ENCODINGS = 'floe.rewrite.stitch.allowed-encodings';
/** Default on: measured (bench/stitch.ts) several times faster than decode/encode at a fraction of the memory. */
export const STITCH_DEFAULT_ENABLED = true;

const CODEC_NAMES: Record<ParquetCodec, string> = {
  zstd: 'ZSTD',
  snappy: 'SNAPPY',
  gzip: 'GZIP',
  uncompressed: 'UNCOMPRESSED',
  lz4_raw: 'LZ4_RAW',
  brotli: 'BROTLI',
};

/**
 * From table properties (and command-line overrides): `floe.rewrite.stitch.enabled` (default true),
 * `floe.rewrite.stitch.min-row-group-bytes` (default a quarter of write.parquet.row-group-size-bytes,
 * i.e. 32 MiB), `floe.rewrite.stitch.allowed-encodings` (comma list; default the v1 encodings).
 */
export function stitchPolicyFromProperties(props: Record<string, string>, codec: ParquetCodec): StitchPolicy {
  const raw = props[STITCH_ENABLED]?.trim().toLowerCase();
  if (raw !== undefined && raw !== 'true' && raw !== 'false') {
    throw new FloeError('InvalidArgument', `${STITCH_ENABLED}=${props[STITCH_ENABLED]} must be true or false`);
  }
  const num = (k: string): number | undefined => {
    const v = props[k];
    if (v === undefined) return undefined;
    if (!/^\d+$/.test(v.trim())) throw new FloeError('InvalidArgument', `${k}=${v} must be a byte count`);
    return Number(v.trim());
  };
  const rowGroupBytes = num('write.parquet.row-group-size-bytes') ?? 128 * 1024 * 1024;
  const encodings = props[STITCH_ENCODINGS]?.split(',')
    .map((e) => e.trim().toUpperCase())
    .filter(Boolean);
  return {
    enabled: raw === undefined ? STITCH_DEFAULT_ENABLED : raw === 'true',
    minRowGroupBytes: num(STITCH_MIN_ROW_GROUP_BYTES) ?? Math.floor(rowGroupBytes / 4),
    rules: { codecs: [CODEC_NAMES[codec]], encodings: encodings?.length ? encodings : V1_ENCODINGS },
    explicit: raw === 'true',
  };
}

export interface StitchTaskFile {
  path: string;
  sizeBytes: number;
  recordCount: number;
  /** Manifest metrics; float NaN counts and bounds are taken from here for outputs made of whole files. */
  stats?: InputFileStats;
}

export interface StitchTaskRequest {
  /** Task id, for output names in messages. */
  name: string;
  files: readonly StitchTaskFile[];
  read(path: string): Promise<Uint8Array>;
  readRange(path: string, offset: number, length: number): Promise<Uint8Array>;
  /** The schema the normal path writes (field ids in `PARQUET:field_id`). */
  outputSchema: arrow.Schema;
  policy: StitchPolicy;
  targetFileBytes: number;
  /** Leaf field ids that must have no nulls in any input row group (v3 lineage columns). */
  nonNullFieldIds?: readonly number[];
  onFileRead(path: string, bytes: number, rows: number): void;
  store(file: WrittenParquet): Promise<void>;
}

export type StitchOutcome =
  { stitched: true; files: number; rowGroups: number; outputs: number } | { stitched: false; reason: string };

const referenceCache = new WeakMap<arrow.Schema, Promise<ParquetSchemaNode[]>>();

/** The Parquet schema floe's writer produces for `schema` (an empty file's footer). */
export function referenceSchema(schema: arrow.Schema): Promise<ParquetSchemaNode[]> {
  let p = referenceCache.get(schema);
  if (!p) {
    p = writeParquet(new arrow.Table(schema), '<schema probe>').then((w) => w.footer.schema);
    referenceCache.set(schema, p);
  }
  return p;
}

const TAIL_GUESS = 64 * 1024;

/** Footer of a file from its tail only: [footer][length][PAR1] re-framed so the footer reader accepts it. */
async function readTailSource(req: StitchTaskRequest, f: StitchTaskFile): Promise<StitchSource> {
  const size = f.sizeBytes;
  if (size < 12) throw parquetCorrupt(f.path, `only ${size} bytes, too short for a Parquet file`);
  // one speculative read covers most footers; a second one only for very wide schemas
  const guess = Math.min(size, TAIL_GUESS);
  let tail = await req.readRange(f.path, size - guess, guess);
  const len = new DataView(tail.buffer, tail.byteOffset + tail.byteLength - 8, 4).getUint32(0, true);
  checkFooterLength(len, size, f.path);
  tail = len + 8 <= guess ? tail.subarray(guess - len - 8) : await req.readRange(f.path, size - 8 - len, len + 8);
  const framed = new Uint8Array(len + 12);
  framed.set([0x50, 0x41, 0x52, 0x31]);
  framed.set(tail, 4);
  return openStitchSource(framed, f.path);
}

/** Why `footer` fails the row-group size or non-null conditions. */
function sizeOrNullProblem(
  footer: ParquetFooter,
  policy: StitchPolicy,
  nonNull: readonly number[],
): string | undefined {
  if (footer.rowGroups.length > 0) {
    const avg = footer.rowGroups.reduce((s, rg) => s + rg.totalByteSize, 0) / footer.rowGroups.length;
    if (avg < policy.minRowGroupBytes)
      return `row groups average ${Math.round(avg)} bytes, below ${policy.minRowGroupBytes}`;
  }
  for (const id of nonNull) {
    for (const [i, rg] of footer.rowGroups.entries()) {
      const c = rg.columns.find((x) => x.fieldId === id);
      if (!c) return `column ${id} is not materialised`;
      if (c.statistics?.nullCount !== 0n) return `column ${c.path.join('.')} may hold nulls in row group ${i}`;
    }
  }
  return undefined;
}

/** Decides from footers whether the task's inputs can be stitched; undefined = yes. */
export async function stitchBlocker(req: StitchTaskRequest): Promise<string | undefined> {
  if (!req.policy.enabled) return `${STITCH_ENABLED}=false`;
  if (req.files.length === 0) return 'no inputs';
  const reference = schemaSignature(await referenceSchema(req.outputSchema), true);
  let first: StitchSource | undefined;
  for (const f of req.files) {
    let src: StitchSource;
    try {
      src = await readTailSource(req, f);
    } catch (e) {
      return `${f.path}: ${e instanceof Error ? e.message : String(e)}`;
    }
    if (src.footer.numRows !== f.recordCount)
      return `${f.path} holds ${src.footer.numRows} rows, its manifest says ${f.recordCount}`;
    const problem =
      stitchProblem(src, req.policy.rules) ?? sizeOrNullProblem(src.footer, req.policy, req.nonNullFieldIds ?? []);
    if (problem) return `${f.path}: ${problem}`;
    if (!first) {
      if (schemaSignature(src.footer.schema, true) !== reference)
        return `${f.path}: schema differs from the table's current schema`;
      first = src;
    } else {
      const why = incompatibility(first, src);
      if (why) return why;
    }
  }
  return undefined;
}

/**
 * Stitches the task if safe. Returns why not otherwise — also when a problem shows only while copying
 * (a chunk whose pages do not match its footer); outputs already stored must then be discarded by the
 * caller, who falls back to decode/encode.
 */
export async function stitchTask(req: StitchTaskRequest): Promise<StitchOutcome> {
  const blocker = await stitchBlocker(req);
  if (blocker) return { stitched: false, reason: blocker };
  let stitcher: ParquetStitcher | undefined;
  let outputs = 0;
  let rowGroups = 0;
  let pending = 0;
  let members: StitchTaskFile[] = []; // inputs whose row groups are all in the open output
  let partial = false; // the open output holds only part of some input
  const roll = async (): Promise<void> => {
    if (!stitcher || stitcher.rowGroupCount === 0) return;
    const file = `${req.name}-${outputs}`;
    const done = stitcher.finish();
    stitcher = undefined;
    pending = 0;
    const fromManifests = partial
      ? undefined
      : floatMetricsFromInputs(
          req.outputSchema,
          members.map((m) => m.stats),
        );
    members = [];
    partial = false;
    const fieldMetrics = fromManifests ?? (await floatFieldMetrics(done.bytes, file, req.outputSchema));
    await req.store({ bytes: done.bytes, rowCount: done.rowCount, footer: done.footer, fieldMetrics });
    outputs++;
  };
  for (const f of req.files) {
    const bytes = await req.read(f.path);
    let src: StitchSource;
    try {
      src = openStitchSource(bytes, f.path);
    } catch (e) {
      return { stitched: false, reason: e instanceof Error ? e.message : String(e) };
    }
    req.onFileRead(f.path, bytes.byteLength, f.recordCount);
    const groups = src.footer.rowGroups;
    for (const [i, rg] of groups.entries()) {
      stitcher ??= new ParquetStitcher({ file: `${req.name}-${outputs}` });
      if (i > 0 && stitcher.rowGroupCount === 0) partial = true; // this output starts mid-file
      try {
        stitcher.add(src, [i]);
      } catch (e) {
        if (e instanceof FloeError && (e.kind === 'Corrupt' || e.kind === 'InvalidArgument'))
          return { stitched: false, reason: e.message };
        throw e;
      }
      rowGroups++;
      pending += rg.totalCompressedSize;
      if (i === groups.length - 1 && !partial) members.push(f);
      if (pending >= req.targetFileBytes) {
        if (i < groups.length - 1) partial = true; // the file continues in the next output
        await roll();
      }
    }
  }
  await roll();
  return { stitched: true, files: req.files.length, rowGroups, outputs };
}
