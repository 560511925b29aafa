/**
 * Which top-level columns the encoder should dictionary-encode, decided from a sample of the first rows.
 *
 * arrow-rs builds a dictionary for every column it is allowed to, and falls back to PLAIN only after the
 * dictionary page limit is hit: a column of mostly distinct values (ids, timestamps, free text, random
 * doubles) is hashed value by value, its dictionary thrown away, and the chunk ends up as dictionary pages
 * followed by PLAIN pages — on issue 11's table that was ~half of all encoding CPU and made the files bigger
 * than PLAIN + zstd. DuckDB and parquet-mr decide per column too (DuckDB by distinct ratio). The rule here:
 * a column goes PLAIN when its sample is mostly distinct *and* a dictionary extrapolated to a full row group
 * would overflow the dictionary page limit (row group = min(row-group rows, the file's expected rows), so
 * small files keep every dictionary); everything else (and every nested column) keeps the dictionary.
 * Only the encoding changes: values, statistics and field ids are the same either way.
 */
import * as arrow from 'apache-arrow';

/** Values looked at per column (strided over the first rows written). */
export const DICTIONARY_SAMPLE = 4096;
/** Fewer sampled values than this say too little: the column keeps its dictionary (arrow-rs decides). */
export const MIN_SAMPLE = 1000;
/** Share of distinct values in the sample above which a column counts as high-cardinality. */
export const HIGH_CARDINALITY = 0.5;

/**
 * Top-level column names that should be written PLAIN (dictionary off). `rowsPerGroup` and
 * `dictionaryPageBytes` are the encoder's settings; `batches` are the first rows, in the encoder's schema.
 */
export function plainColumns(
  schema: arrow.Schema,
  batches: readonly arrow.RecordBatch[],
  rowsPerGroup: number,
  dictionaryPageBytes: number,
): string[] {
  const samples = schema.fields.map((field, c) =>
    distinctSample(
      field.type as arrow.DataType,
      batches.map((b) => b.data.children[c]!).filter((d) => d.length > 0),
    ),
  );
  return plainColumnsFromSamples(schema, samples, rowsPerGroup, dictionaryPageBytes);
}

/** The rule of plainColumns on samples already taken (one per top-level column; undefined: not sampled). */
export function plainColumnsFromSamples(
  schema: arrow.Schema,
  samples: readonly (Sample | undefined)[],
  rowsPerGroup: number,
  dictionaryPageBytes: number,
): string[] {
  const out: string[] = [];
  schema.fields.forEach((field, c) => {
    const sample = samples[c];
    if (!sample || sample.sampled < MIN_SAMPLE) return;
    const ratio = sample.distinct / sample.sampled;
    const projected = ratio * rowsPerGroup * sample.avgBytes;
    if (ratio > HIGH_CARDINALITY && projected > dictionaryPageBytes) out.push(field.name);
  });
  return out;
}

export interface Sample {
  sampled: number;
  distinct: number;
  /** Average encoded bytes of one (non-null) value, as PLAIN stores it. */
  avgBytes: number;
}

/** Fixed byte width of the value types the sampler reads from a flat values buffer. */
function fixedWidth(t: arrow.DataType): number | undefined {
  if (arrow.DataType.isInt(t)) return t.bitWidth / 8;
  if (arrow.DataType.isFloat(t))
    return t.precision === arrow.Precision.HALF ? 2 : t.precision === arrow.Precision.SINGLE ? 4 : 8;
  if (arrow.DataType.isDate(t)) return t.unit === arrow.DateUnit.DAY ? 4 : 8;
  if (arrow.DataType.isTime(t)) return t.bitWidth / 8;
  if (arrow.DataType.isTimestamp(t)) return 8;
  if (arrow.DataType.isDecimal(t)) return t.bitWidth / 8;
  if (arrow.DataType.isFixedSizeBinary(t)) return t.byteWidth;
  return undefined;
}

/**
 * Distinct values among up to DICTIONARY_SAMPLE non-null values of `parts`, counted by a 30-bit hash of
 * each value's bytes (no JS strings, small integers in the Set; a collision only makes the estimate lower,
 * i.e. keeps the dictionary — among 4096 values one is expected in ~250 samples).
 * Undefined for types the sampler does not read (booleans, nested, dictionary-typed, view types).
 */
function distinctSample(type: arrow.DataType, parts: arrow.Data[]): Sample | undefined {
  const width = fixedWidth(type);
  const variable = arrow.DataType.isUtf8(type) || arrow.DataType.isBinary(type);
  if (width === undefined && !variable) return undefined;
  const total = parts.reduce((s, d) => s + d.length, 0);
  const stride = Math.max(1, Math.floor(total / DICTIONARY_SAMPLE));
  const seen = new Set<number>();
  let sampled = 0;
  let bytes = 0;
  for (const d of parts) {
    const values = d.values as ArrayBufferView;
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    const offsets = d.valueOffsets as Int32Array | undefined;
    for (let i = 0; i < d.length && sampled < DICTIONARY_SAMPLE; i += stride) {
      if (d.nullCount > 0 && !d.getValid(i)) continue;
      let start: number;
      let end: number;
      if (variable) {
        // arrow-js slices value and offset buffers to the Data's rows; only the validity bitmap keeps `offset`
        start = offsets![i]!;
        end = offsets![i + 1]!;
      } else {
        start = i * width!;
        end = start + width!;
      }
      seen.add(hashBytes(raw, start, end));
      sampled++;
      bytes += end - start + (variable ? 4 : 0); // PLAIN BYTE_ARRAY: 4-byte length prefix
    }
  }
  return { sampled, distinct: seen.size, avgBytes: sampled ? bytes / sampled : 0 };
}

/** FNV-1a over the bytes, with a final avalanche, folded to 30 bits (a small integer for V8). */
function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}
