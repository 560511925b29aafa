/**
 * Writes one Iceberg position delete file (spec "Position Delete Files"): Parquet with the reserved columns
 * `file_path` (field id 2147483546) and `pos` (2147483545), rows sorted by path then position, and describes
 * it for the commit with the metrics Java writes — value and null counts, and full (untruncated) bounds on
 * `file_path`, so a reader can tell from the bounds alone which data file(s) it covers. A file over a single
 * data file also names it as `referenced_data_file`.
 */
import * as arrow from 'apache-arrow';
import { writeParquet } from '../formats/parquet/index.js';
import type { CommitIO, NewContentFile } from './commit-rewrite.js';
import type { DataFileDeletes } from './delete-writer.js';
import { encodeSingleValue } from './write-bounds.js';

/** The reserved field id of a position delete file's `file_path` column. */
export const DELETE_FILE_PATH_FIELD_ID = 2147483546;
/** The reserved field id of a position delete file's `pos` column. */
export const DELETE_POS_FIELD_ID = 2147483545;

const STRING = { kind: 'primitive', name: 'string' } as const;
const LONG = { kind: 'primitive', name: 'long' } as const;

/**
 * Writes the deleted positions of the given data files as one position delete file at `location`;
 * undefined (nothing written) when no file has a deleted position.
 */
export async function writePositionDeleteFile(
  out: CommitIO,
  location: string,
  deletes: readonly DataFileDeletes[],
): Promise<NewContentFile | undefined> {
  const sorted = deletes
    .map((d) => ({ file: d.file, positions: [...d.positions].sort((a, b) => a - b) }))
    .filter((d) => d.positions.length > 0)
    .sort((a, b) => (a.file.path < b.file.path ? -1 : a.file.path > b.file.path ? 1 : 0));
  if (sorted.length === 0) return undefined;
  const paths: string[] = [];
  const pos: bigint[] = [];
  for (const d of sorted) {
    for (const p of d.positions) {
      paths.push(d.file.path);
      pos.push(BigInt(p));
    }
  }
  const written = await writeParquet(positionDeleteTable(paths, pos), location, { codec: 'zstd', createdBy: 'floe' });
  await out.createNew(location, written.bytes);
  const first = sorted[0]!.file;
  const last = sorted[sorted.length - 1]!.file;
  const rows = BigInt(paths.length);
  return {
    content: 1,
    path: location,
    format: 'PARQUET',
    recordCount: paths.length,
    sizeBytes: written.bytes.byteLength,
    specId: first.specId,
    partitionOf: first.path,
    valueCounts: new Map([
      [DELETE_FILE_PATH_FIELD_ID, rows],
      [DELETE_POS_FIELD_ID, rows],
    ]),
    nullValueCounts: new Map([
      [DELETE_FILE_PATH_FIELD_ID, 0n],
      [DELETE_POS_FIELD_ID, 0n],
    ]),
    lowerBounds: new Map([
      [DELETE_FILE_PATH_FIELD_ID, encodeSingleValue(STRING, first.path)],
      [
        DELETE_POS_FIELD_ID,
        encodeSingleValue(
          LONG,
          pos.reduce((a, b) => (b < a ? b : a)),
        ),
      ],
    ]),
    upperBounds: new Map([
      [DELETE_FILE_PATH_FIELD_ID, encodeSingleValue(STRING, last.path)],
      [
        DELETE_POS_FIELD_ID,
        encodeSingleValue(
          LONG,
          pos.reduce((a, b) => (b > a ? b : a)),
        ),
      ],
    ]),
    ...(sorted.length === 1 ? { referencedDataFile: first.path } : {}),
  };
}

/** The two required columns with their reserved field ids, one row per deleted position. */
function positionDeleteTable(paths: string[], pos: bigint[]): arrow.Table {
  const schema = new arrow.Schema([
    new arrow.Field(
      'file_path',
      new arrow.Utf8(),
      false,
      new Map([['PARQUET:field_id', String(DELETE_FILE_PATH_FIELD_ID)]]),
    ),
    new arrow.Field('pos', new arrow.Int64(), false, new Map([['PARQUET:field_id', String(DELETE_POS_FIELD_ID)]])),
  ]);
  const pathColumn = arrow.vectorFromArray(paths, new arrow.Utf8());
  const posColumn = arrow.makeVector(BigInt64Array.from(pos));
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: paths.length,
      nullCount: 0,
      children: [pathColumn.data[0]!, posColumn.data[0]!],
    }),
  );
  return new arrow.Table(schema, [batch]);
}
