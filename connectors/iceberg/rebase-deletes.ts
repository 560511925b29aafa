/**
 * Carrying deletes over a rewrite ("rebase"): when a commit that landed after the plan added position deletes
 * (v2 files) or deletion vectors (v3) against data files a compaction replaces, the rows they delete are
 * rows the rewrite copied into its outputs. floe wrote those outputs, so each knows which input position
 * each of its rows came from (NewContentFile.sourceRows, recorded by the executor); the deleted input
 * positions become output positions, written as new position deletes / DVs against the outputs and committed
 * in the same `replace` — instead of failing the group as Java's RewriteFiles validation does ("found new
 * position delete for replaced data file").
 *
 * Rows the plan had already deleted are in no output: a delete of them (a v3 DV repeats its predecessor's
 * positions) maps to nothing, as it should. A group whose outputs do not account for every row they hold
 * (no source rows: sorted, stitched, or written elsewhere) is not carried over; the caller fails it.
 */
import { FloeError } from '../../util/errors.js';
import type { Field } from '../../model/index.js';
import type { DataFileDeletes, DeleteFileWriter } from './delete-writer.js';
import { DELETE_FILE_PATH_FIELD_ID, DELETE_POS_FIELD_ID } from './position-delete-writer.js';
import { openParquet, readColumnsById } from './parquet-reader.js';
import { decodeDeletionVector } from './puffin.js';
import type { CommitIO } from './transaction.js';
import type { NewContentFile, RawDataFile } from './write-manifest.js';

/** `-o floe.rebase-concurrent-deletes=false` turns the carry-over off for a compaction run. */
export const REBASE_OPTION = 'floe.rebase-concurrent-deletes';

const FILE_PATH_FIELD: Field = {
  id: DELETE_FILE_PATH_FIELD_ID,
  name: 'file_path',
  required: true,
  type: { kind: 'primitive', name: 'string' },
};
const POS_FIELD: Field = {
  id: DELETE_POS_FIELD_ID,
  name: 'pos',
  required: true,
  type: { kind: 'primitive', name: 'long' },
};

/** Why the outputs of a group cannot take carried deletes, or undefined when they can. */
export function cannotCarry(outputs: readonly NewContentFile[]): string | undefined {
  for (const o of outputs) {
    if (o.content !== 0) continue;
    if (!o.sourceRows) return `output ${o.path} does not record where its rows came from (sorted or stitched)`;
    const rows = o.sourceRows.reduce((n, s) => n + (s.end - s.start - (s.skip?.length ?? 0)), 0);
    if (rows !== Number(o.recordCount))
      return `output ${o.path} records ${rows} source rows for its ${o.recordCount} rows`;
  }
  return undefined;
}

/**
 * The positions a position delete file or DV deletes from each of `paths` (others are ignored): a v2 file's
 * (file_path, pos) rows, a DV's blob (read from its Puffin file at content_offset).
 */
export async function deletedPositionsIn(
  io: Pick<CommitIO, 'read'>,
  d: RawDataFile,
  paths: ReadonlySet<string>,
): Promise<Map<string, Set<number>>> {
  const out = new Map<string, Set<number>>();
  const add = (path: string, pos: number) => {
    let s = out.get(path);
    if (!s) out.set(path, (s = new Set()));
    s.add(pos);
  };
  const path = String(d.file_path);
  const offset = d.content_offset as bigint | number | null | undefined;
  if (String(d.file_format).toUpperCase() === 'PUFFIN') {
    const target = d.referenced_data_file as string | null | undefined;
    const size = d.content_size_in_bytes as bigint | number | null | undefined;
    if (typeof target !== 'string' || offset === null || offset === undefined || size === null || size === undefined)
      throw new FloeError('Corrupt', `deletion vector in ${path} has no referenced_data_file / content offset`, {
        context: { file: path },
      });
    if (!paths.has(target)) return out;
    const bytes = await io.read(path);
    const start = Number(offset);
    for (const p of decodeDeletionVector(bytes.subarray(start, start + Number(size)), path)) add(target, p);
    return out;
  }
  if (String(d.file_format).toUpperCase() !== 'PARQUET')
    throw new FloeError('Unsupported', `position delete file ${path} is ${String(d.file_format)}, not Parquet`, {
      context: { file: path },
    });
  const rows = await readColumnsById(openParquet(await io.read(path), path), [FILE_PATH_FIELD, POS_FIELD]);
  for (const [fp, pos] of rows) {
    if (typeof fp !== 'string' || pos === null || pos === undefined)
      throw new FloeError('Corrupt', `position delete file ${path} has a row without file_path/pos`, {
        context: { file: path },
      });
    if (paths.has(fp)) add(fp, Number(pos));
  }
  return out;
}

/** Deleted input positions (by input path) as deleted positions of the outputs that hold those rows. */
export function toOutputPositions(
  outputs: readonly NewContentFile[],
  deleted: ReadonlyMap<string, ReadonlySet<number>>,
): DataFileDeletes[] {
  const result: DataFileDeletes[] = [];
  for (const o of outputs) {
    if (o.content !== 0 || !o.sourceRows) continue;
    const positions: number[] = [];
    let at = 0; // the output position of the span's first row
    for (const s of o.sourceRows) {
      const del = deleted.get(s.path);
      const skip = s.skip ?? [];
      if (del) {
        for (const p of del) {
          if (p < s.start || p >= s.end) continue;
          const before = skippedBefore(skip, p); // skipped positions < p
          if (skip[before] === p) continue; // the rewrite had dropped it already
          positions.push(at + (p - s.start) - before);
        }
      }
      at += s.end - s.start - skip.length;
    }
    if (positions.length > 0) result.push({ file: { path: o.path, specId: o.specId }, positions });
  }
  return result;
}

/** How many of the ascending `skip` are < p (binary search). */
function skippedBefore(skip: readonly number[], p: number): number {
  let lo = 0;
  let hi = skip.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (skip[mid]! < p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Writes the carried deletes of one group — one position delete file (v2) or one Puffin file of DVs (v3) —
 * named `name`, each taking its partition from `partitionOf` (a live input of the group: the outputs are not
 * in the table yet).
 */
export async function writeCarriedDeletes(
  writer: DeleteFileWriter,
  name: string,
  deletes: readonly DataFileDeletes[],
  partitionOf: string,
): Promise<NewContentFile[]> {
  if (deletes.length === 0) return [];
  const files = writer.deletionVectors
    ? await writer.writeDeletionVectors(name, deletes)
    : await writer.writePositionDeletes(name, deletes);
  return files.map((f) => ({ ...f, partitionOf }));
}
