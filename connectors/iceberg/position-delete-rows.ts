/**
 * The rows of a position delete file, read through the Parquet codec as Arrow columns instead of one JS
 * object per row: `pos` left in its int64 buffer (handed on as a run of 32-bit word pairs), `file_path`
 * compared as bytes with the row before and turned into text once per run of one path (writers sort by
 * path, so a file holds a few runs).
 */
import type * as arrow from 'apache-arrow';
import { FloeError } from '../../util/errors.js';
import type { Field } from '../../model/index.js';
import { castToSchema, iterateRowGroups } from '../formats/parquet/index.js';

/** Positions [from, to) of an int64 column seen as 32-bit words: position i is words 2i (low), 2i + 1 (high). */
export interface PositionRun {
  words: Int32Array;
  from: number;
  to: number;
}

const TWO_32 = 4294967296;

/** Calls `each` with every position of the runs, as a number (exact below 2^53; a delete file has no more rows). */
export function forEachPosition(runs: readonly PositionRun[], each: (pos: number) => void): void {
  for (const { words, from, to } of runs)
    for (let i = from; i < to; i++) each(words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0));
}

/** Sets mask[pos] = 1 for every position of the runs inside the mask (negative or past its end: nothing). */
export function markPositions(runs: readonly PositionRun[], mask: Uint8Array): void {
  const n = mask.length;
  for (const { words, from, to } of runs) {
    for (let i = from; i < to; i++) {
      const lo = words[2 * i]! >>> 0;
      if (words[2 * i + 1] === 0 && lo < n) mask[lo] = 1;
    }
  }
}

function sameBytes(v: Uint8Array, a: number, b: number, c: number, d: number): boolean {
  if (b - a !== d - c) return false;
  for (let i = 0; i < b - a; i++) if (v[a + i] !== v[c + i]) return false;
  return true;
}

/**
 * Calls `run(path, positions)` for each run of rows naming one data file, in file order (a path's rows
 * split over batches come as several runs). `fields` are the reserved file_path and pos fields; a row
 * without either is corruption.
 */
export async function forEachPositionRun(
  bytes: Uint8Array,
  file: string,
  fields: readonly [Field, Field],
  run: (path: string, positions: PositionRun) => void,
): Promise<void> {
  const bad = () =>
    new FloeError('Corrupt', `position delete file ${file} has a row without file_path/pos`, {
      context: { file },
    });
  for await (const rg of iterateRowGroups(bytes, file, { fieldIds: fields.map((f) => f.id) })) {
    const t = castToSchema(rg.table, [...fields], file);
    for (const batch of t.batches) {
      const paths = batch.data.children[0]! as arrow.Data<arrow.Utf8>;
      const pos = batch.data.children[1]! as arrow.Data<arrow.Int64>;
      if (paths.nullCount > 0 || pos.nullCount > 0) throw bad();
      const offs = paths.valueOffsets;
      const text = paths.values;
      const words = new Int32Array(pos.values.buffer, pos.values.byteOffset, pos.length * 2);
      // each run gets its own copy of its words: a view would keep the whole decoded row group alive
      const emit = (p: string, from: number, to: number) =>
        run(p, { words: words.slice(2 * from, 2 * to), from: 0, to: to - from });
      let path: string | undefined;
      let from = 0;
      for (let i = 0; i < batch.numRows; i++) {
        const a = offs[i]!;
        const b = offs[i + 1]!;
        if (i > 0 && sameBytes(text, a, b, offs[i - 1]!, offs[i]!)) continue;
        if (path !== undefined) emit(path, from, i);
        path = Buffer.from(text.buffer, text.byteOffset + a, b - a).toString('utf8');
        from = i;
      }
      if (path !== undefined) emit(path, from, batch.numRows);
    }
  }
}
