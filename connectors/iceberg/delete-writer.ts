/**
 * The Iceberg side of writing deletes: callers say which rows of which data files are deleted, and this
 * writes the files a table of that format version takes — position delete files (position-delete-writer.ts)
 * or, on v3, deletion vectors in a Puffin file (puffin-dv-file.ts) — under the table's data directory, and
 * describes them for the commit. Callers give the name (their run prefix and task); the directory and the
 * extension are the writer's.
 */
import type { DataFile } from '../../model/index.js';
import type { CommitIO, NewContentFile } from './commit-rewrite.js';
import type { IcebergMetadata } from './metadata.js';
import { storeDeletionVectors } from './puffin-dv-file.js';
import { writePositionDeleteFile } from './position-delete-writer.js';
import { dataDirOf } from './write-locations.js';

/** The deleted row positions of one data file. */
export interface DataFileDeletes {
  file: Pick<DataFile, 'path' | 'specId'>;
  /** Every deleted position of the file (a new DV replaces any DV the file had: old ∪ new). */
  positions: Iterable<number>;
}

export interface DeleteFileWriter {
  /** True on format v3 and later: deletes are deletion vectors (one per data file, replacing its old DV). */
  readonly deletionVectors: boolean;
  /**
   * One position delete file `<name>.parquet` with the deleted positions of every given data file
   * (none written when no file has a deleted position).
   */
  writePositionDeletes(name: string, deletes: readonly DataFileDeletes[]): Promise<NewContentFile[]>;
  /** One Puffin file `<name>.puffin` with one deletion vector per given data file (none when all are empty). */
  writeDeletionVectors(name: string, deletes: readonly DataFileDeletes[]): Promise<NewContentFile[]>;
}

/** The delete writer for the table `md` describes, writing through `out`. */
export function deleteFileWriter(
  md: Pick<IcebergMetadata, 'formatVersion' | 'location' | 'properties'>,
  out: CommitIO,
): DeleteFileWriter {
  const dataDir = dataDirOf(md);
  return {
    deletionVectors: md.formatVersion >= 3,
    async writePositionDeletes(name, deletes) {
      const file = await writePositionDeleteFile(out, `${dataDir}/${name}.parquet`, deletes);
      return file ? [file] : [];
    },
    writeDeletionVectors: (name, deletes) => storeDeletionVectors(out, `${dataDir}/${name}.puffin`, deletes),
  };
}

/** A data file's name without its directory and `.parquet`: `…/data/00001-a.parquet` → `00001-a`. */
export function dataFileStem(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).replace(/\.parquet$/, '');
}

/** Bytes of the distinct files among `files` (deletion vectors share their Puffin file: it counts once). */
export function distinctFileBytes(files: readonly Pick<NewContentFile, 'path' | 'sizeBytes'>[]): number {
  return [...new Map(files.map((f) => [f.path, Number(f.sizeBytes)])).values()].reduce((n, b) => n + b, 0);
}
