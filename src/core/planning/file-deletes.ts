/** A data file with the delete files that apply to it: what the binpack and tiered planners group into tasks. */
import type { DataFile, DeleteFile } from '../../../model/index.js';

export interface FileWithDeletes {
  file: DataFile;
  deletes: readonly DeleteFile[];
}

/** Bytes of the data files (deletes not counted). */
export function dataBytes(members: readonly FileWithDeletes[]): number {
  let n = 0;
  for (const m of members) n += m.file.sizeBytes;
  return n;
}

/** The deletes of all members, each once, in first-seen order. */
export function unionDeletes(members: readonly FileWithDeletes[]): DeleteFile[] {
  const seen = new Set<DeleteFile>();
  const out: DeleteFile[] = [];
  for (const m of members) {
    for (const d of m.deletes) {
      if (!seen.has(d)) {
        seen.add(d);
        out.push(d);
      }
    }
  }
  return out;
}
