/**
 * Where the rewrite of one partition/bucket writes — the merge (compact-pk.ts), append (compact-append.ts)
 * and sort (sort-compact.ts) rewrites alike — and the rolling-writer target its output files get.
 */
import type { PaimonWriteIO } from './io.js';
import type { PaimonFile, PaimonTable } from './table.js';
import type { DataWriteSettings, FileNamer, RollingTarget } from './write-data-file.js';

export interface BucketWriteContext {
  table: PaimonTable;
  storage: PaimonWriteIO;
  settings: DataWriteSettings;
  names: FileNamer;
  partitionDir: string;
  bucket: number;
  targetFileSize: number;
  nowMs?: number;
  onFileRead?: (path: string, bytes: number, rows: number) => void;
}

/** Expected compressed bytes per output row: the inputs' average (1 when they hold no row). */
export function bytesPerRowOf(files: readonly PaimonFile[]): number {
  const rows = files.reduce((n, f) => n + Number(f.meta.rowCount), 0);
  const bytes = files.reduce((n, f) => n + Number(f.meta.fileSize), 0);
  return rows ? bytes / rows : 1;
}

/** The rolling target of the bucket's output files: at `level`, of `fileSource`, named by `names`. */
export function bucketWriteTarget(
  ctx: Omit<BucketWriteContext, 'onFileRead'>,
  o: { level: number; fileSource: number; names: FileNamer; bytesPerRow: number },
): RollingTarget {
  return {
    table: ctx.table.location,
    partitionDir: ctx.partitionDir,
    bucket: ctx.bucket,
    schema: ctx.table.schema,
    settings: ctx.settings,
    storage: ctx.storage,
    targetFileSize: ctx.targetFileSize,
    bytesPerRow: o.bytesPerRow,
    level: o.level,
    fileSource: o.fileSource,
    names: o.names,
    ...(ctx.nowMs !== undefined ? { nowMs: ctx.nowMs } : {}),
  };
}
