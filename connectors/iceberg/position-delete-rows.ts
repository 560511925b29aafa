/**
 * The rows of a position delete file, read through the Parquet codec as Arrow columns instead of one JS
 * object per row: `pos` straight from its int64 buffer, `file_path` compared as bytes with the row before
 * and turned into text once per run of one path (writers sort by path, so a file holds a few runs).
 */
import type * as arrow from 'apache-arrow';
import { FloeError } from '../../util/errors.js';
import type { Field } from '../../model/index.js';
import { castToSchema, iterateRowGroups } from '../formats/parquet/index.js';

const TWO_32 = 4294967296;

function sameBytes(v: Uint8Array, a: number, b: number, c: number, d: number): boolean {
  if (b - a !== d - c) return false;
  for (let i = 0; i < b - a; i++) if (v[a + i] !== v[c + i]) return false;
  return true;
}

/**
 * Calls `run(path, positions)` for each run of rows naming one data file, in file order. `fields` are the
 * reserved file_path and pos fields; a row without either is corruption.
 */
export async function forEachPositionRun(
  bytes: Uint8Array,
  file: string,
  fields: readonly [Field, Field],
  run: (path: string, positions: number[]) => void,
): Promise<void> {
  let path: string | undefined;
  let positions: number[] = [];
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
      let last = -1; // row of this batch whose path `path` is, -1: a previous batch's
      for (let i = 0; i < batch.numRows; i++) {
        const a = offs[i]!;
        const b = offs[i + 1]!;
        if (last < 0 || !sameBytes(text, a, b, offs[last]!, offs[last + 1]!)) {
          const next = Buffer.from(text.buffer, text.byteOffset + a, b - a).toString('utf8');
          if (next !== path) {
            if (path !== undefined) run(path, positions);
            path = next;
            positions = [];
          }
        }
        last = i;
        positions.push(words[2 * i + 1]! * TWO_32 + (words[2 * i]! >>> 0));
      }
    }
  }
  if (path !== undefined) run(path, positions);
}
