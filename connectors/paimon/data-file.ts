/**
 * Reads a Paimon data file into columns keyed by Paimon field id, so schema evolution (renames, drops,
 * reorders) resolves by id, never by name. Goes through the shared lossless Parquet layer
 * (parquet-wasm → Arrow → exact JS values) and normalises values to the representation documented in
 * binary-row.ts (timestamps as bigint micros for precision ≤ 6 / nanos above, TIME as millis).
 */
import * as arrow from 'apache-arrow';
import { FloeError, errorForFile } from '../../util/errors.js';
import { fieldIdOf } from '../../model/arrow/field-id.js';
import { readParquetFooter } from '../formats/parquet/footer.js';
import { readParquetTable } from '../formats/parquet/read.js';
import { valueFromArrow } from '../../model/arrow/rows.js';
import type { PaimonIO } from './io.js';

export interface DataFileColumns {
  numRows: number;
  /** Column values by field id (absent: the file has no such field). */
  byId: Map<number, unknown[]>;
}

export function fileFormatOf(name: string): 'parquet' | 'orc' | 'avro' | undefined {
  const m = /\.(parquet|orc|avro)$/i.exec(name);
  return m ? (m[1]!.toLowerCase() as 'parquet' | 'orc' | 'avro') : undefined;
}

/** Scales Arrow timestamp/time values to the Paimon representation. */
function normaliser(t: arrow.DataType): ((v: unknown) => unknown) | undefined {
  if (arrow.DataType.isTimestamp(t)) {
    switch (t.unit) {
      case arrow.TimeUnit.SECOND:
        return (v) => (v as bigint) * 1_000_000n;
      case arrow.TimeUnit.MILLISECOND:
        return (v) => (v as bigint) * 1000n;
      default:
        return undefined; // micros stay micros, nanos stay nanos (precision > 6)
    }
  }
  if (arrow.DataType.isTime(t)) {
    switch (t.unit) {
      case arrow.TimeUnit.SECOND:
        return (v) => Number(v) * 1000;
      case arrow.TimeUnit.MILLISECOND:
        return (v) => Number(v);
      case arrow.TimeUnit.MICROSECOND:
        return (v) => Number((v as bigint) / 1000n);
      default:
        return (v) => Number((v as bigint) / 1_000_000n);
    }
  }
  return undefined;
}

/**
 * `idOfName` resolves columns of files without Parquet field ids (Paimon ≤ 0.9 writes none) through the
 * schema the file was written with, as Paimon itself does.
 */
export async function readDataFile(
  io: PaimonIO,
  path: string,
  fieldIds?: ReadonlySet<number>,
  idOfName?: (name: string) => number | undefined,
): Promise<DataFileColumns> {
  const format = fileFormatOf(path) ?? 'parquet';
  if (format !== 'parquet') {
    throw new FloeError(
      'Unsupported',
      `Paimon data file ${path}: ${format} data files are not supported yet (Parquet only)`,
      {
        context: { file: path, format },
      },
    );
  }
  const bytes = await io.read(path);
  try {
    const footer = readParquetFooter(bytes, path);
    // footer.schema holds the top-level columns; the mapping is only consulted for files without ids
    const nameMapping = new Map<string, number>();
    if (idOfName) {
      for (const n of footer.schema) {
        const id = idOfName(n.name);
        if (id !== undefined) nameMapping.set(n.name, id);
      }
    }
    const opts: Parameters<typeof readParquetTable>[2] = { nameMapping };
    if (fieldIds) opts.fieldIds = [...fieldIds];
    const table = await readParquetTable(bytes, path, opts);
    const byId = new Map<number, unknown[]>();
    table.schema.fields.forEach((f, c) => {
      const id = fieldIdOf(f);
      if (id === undefined || byId.has(id)) return;
      const norm = normaliser(f.type);
      const values: unknown[] = [];
      for (const batch of table.batches) {
        const data = batch.data.children[c]!;
        for (let r = 0; r < batch.numRows; r++) {
          const v = valueFromArrow(data, r);
          values.push(v === null || v === undefined ? null : norm ? norm(v) : v);
        }
      }
      byId.set(id, values);
    });
    return { numRows: table.numRows, byId };
  } catch (e) {
    throw errorForFile('Corrupt', path, 'cannot read Paimon data file', e);
  }
}
