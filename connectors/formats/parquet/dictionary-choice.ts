/**
 * Which top-level columns the encoder should dictionary-encode, decided from a sample of the first rows.
 *
 * arrow-rs builds a dictionary for every column it is allowed to, and falls back to PLAIN only after the
 * dictionary page limit is hit: a column of mostly distinct values (ids, timestamps, free text, random
 * doubles) is hashed value by value, its dictionary thrown away, and the chunk ends up as dictionary pages
 * followed by PLAIN pages — on issue 11's table that was ~half of all encoding CPU and made the files bigger
 * than PLAIN + zstd. DuckDB and parquet-mr decide per column too (DuckDB by distinct ratio). The rule here:
 * a column goes PLAIN when the dictionary of a full row group, estimated from the sample, would overflow
 * the dictionary page limit (row group = min(row-group rows, the file's expected rows), so small files keep
 * every dictionary) — arrow-rs would fall back for it anyway; everything else (and every nested column)
 * keeps the dictionary. The estimate is not the sample's distinct share times the row group's rows: a
 * column of 26,000 values sampled 4,096 times looks 93 % distinct, yet its dictionary (~300 KB) fits. It
 * solves the distinct count a uniform draw from N values would show for N, and counts what a row group
 * would draw from those N (distinctOf) — unless the values drift with the row order (the sample's halves
 * share fewer values than N predicts), where the sample's distinct share is projected as it is. Skewed
 * data shows fewer distinct values than uniform data, so N comes out low and such a column keeps its
 * dictionary: that error falls on the side of arrow-rs deciding (it falls back when the page fills).
 * Only the encoding changes: values, statistics and field ids are the same either way.
 */
import * as arrow from 'apache-arrow';

/** Values looked at per column (strided over the first rows written). */
export const DICTIONARY_SAMPLE = 4096;
/** Fewer sampled values than this say too little: the column keeps its dictionary (arrow-rs decides). */
export const MIN_SAMPLE = 1000;

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

/**
 * The rule of plainColumns on samples already taken (one per top-level column; undefined: not sampled) — the
 * native rewrite (rewrite.rs) takes the same sample in the addon and decides here.
 */
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
    // the row group's non-null values, at the sample's null share
    const draws = (rowsPerGroup * sample.sampled) / sample.visited;
    const population = populationOf(sample.sampled, sample.distinct);
    // Values that drift with the row order (a sequence plus noise, timestamps) share few values between the
    // sample's halves; a uniform draw from `population` shares d₁·d₂/N. Drifting: each row brings new values
    // at the sample's rate.
    const drifting = sample.overlap < (0.5 * sample.firstHalf * sample.secondHalf) / population;
    const distinct = drifting ? (draws * sample.distinct) / sample.sampled : distinctOf(population, draws);
    if (distinct * sample.avgBytes > dictionaryPageBytes) out.push(field.name);
  });
  return out;
}

/** Fields of a Sample in the order the native rewrite sends them (SAMPLE_FIELDS numbers per column). */
export const SAMPLE_FIELDS = 7;

/** A Sample from the native rewrite's flat numbers for column `c` (visited < 0: not sampled). */
export function sampleAt(flat: readonly number[], c: number): Sample | undefined {
  const at = SAMPLE_FIELDS * c;
  const visited = flat[at] ?? -1;
  if (visited < 0) return undefined;
  return {
    visited,
    sampled: flat[at + 1]!,
    distinct: flat[at + 2]!,
    firstHalf: flat[at + 3]!,
    secondHalf: flat[at + 4]!,
    overlap: flat[at + 5]!,
    avgBytes: flat[at + 6]!,
  };
}

/**
 * The number of equally likely values N that `n` uniform draws most plausibly came from when they showed
 * `d` distinct ones: the root of N·(1 − e^(−n/N)) = d (increasing in N). Infinity when every draw differed.
 */
export function populationOf(n: number, d: number): number {
  if (d >= n) return Infinity;
  if (d <= 1) return d;
  const f = (N: number): number => distinctOf(N, n) - d;
  let lo = d;
  let hi = 2 * d;
  while (f(hi) < 0) {
    if (hi > 1e15) return Infinity;
    lo = hi;
    hi *= 2;
  }
  for (let i = 0; i < 60 && hi - lo > 0.5; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < 0) lo = mid;
    else hi = mid;
  }
  return hi;
}

/** Expected distinct values among `draws` uniform draws from `population` equally likely values. */
export function distinctOf(population: number, draws: number): number {
  return population === Infinity ? draws : -population * Math.expm1(-draws / population);
}

export interface Sample {
  /** Rows looked at, nulls included. */
  visited: number;
  sampled: number;
  distinct: number;
  /** Distinct values in the first and in the second half of the sample, and in both. */
  firstHalf: number;
  secondHalf: number;
  overlap: number;
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
  // Large* (64-bit offsets) too: pyarrow, hence PyIceberg, writes large_string / large_binary
  const variable =
    arrow.DataType.isUtf8(type) ||
    arrow.DataType.isBinary(type) ||
    arrow.DataType.isLargeUtf8(type) ||
    arrow.DataType.isLargeBinary(type);
  if (width === undefined && !variable) return undefined;
  const total = parts.reduce((s, d) => s + d.length, 0);
  const stride = Math.max(1, Math.floor(total / DICTIONARY_SAMPLE));
  const hashes: number[] = [];
  let visited = 0;
  let sampled = 0;
  let bytes = 0;
  for (const d of parts) {
    const values = d.values as ArrayBufferView;
    const raw = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
    const offsets = d.valueOffsets as Int32Array | BigInt64Array | undefined;
    for (let i = 0; i < d.length && sampled < DICTIONARY_SAMPLE; i += stride) {
      visited++;
      if (d.nullCount > 0 && !d.getValid(i)) continue;
      let start: number;
      let end: number;
      if (variable) {
        // arrow-js slices value and offset buffers to the Data's rows; only the validity bitmap keeps `offset`
        start = Number(offsets![i]!);
        end = Number(offsets![i + 1]!);
      } else {
        start = i * width!;
        end = start + width!;
      }
      hashes.push(hashBytes(raw, start, end));
      sampled++;
      bytes += end - start + (variable ? 4 : 0); // PLAIN BYTE_ARRAY: 4-byte length prefix
    }
  }
  const half = hashes.length >> 1;
  const first = new Set(hashes.slice(0, half));
  const second = new Set(hashes.slice(half));
  let overlap = 0;
  for (const h of second) if (first.has(h)) overlap++;
  return {
    visited,
    sampled,
    distinct: first.size + second.size - overlap,
    firstHalf: first.size,
    secondHalf: second.size,
    overlap,
    avgBytes: sampled ? bytes / sampled : 0,
  };
}

/** FNV-1a over the bytes, with a final avalanche, folded to 30 bits (a small integer for V8). */
function hashBytes(b: Uint8Array, start: number, end: number): number {
  let h = 0x811c9dc5 ^ (end - start);
  for (let i = start; i < end; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  h = Math.imul(h ^ (h >>> 12), 0x297a2d39);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}
