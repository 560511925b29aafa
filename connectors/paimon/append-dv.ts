/**
 * Append tables with deletion vectors (`deletion-vectors.enabled=true`, no primary key), as Java Paimon 1.3
 * compacts them:
 *
 * - Picking, bucket-unaware (`bucket = -1`, `AppendCompactCoordinator.packInDeletionVectorVMode`): a file
 *   takes part when it is small (< target × 0.7) or its DV deletes more than
 *   `compaction.delete-ratio-threshold` (0.2) of its rows; files with a DV are grouped by their DV index
 *   file and those groups are always compacted (bins of ≥ 2 × target, the last bin whatever its size); the
 *   files without a DV are packed as without DVs, when there are at least two.
 * - Picking, fixed buckets (`BucketedAppendCompactManager`): the normal window ignores DVs; a full
 *   compaction never skips a leading large file that has a DV, and compacts whatever is left.
 * - Rewriting (`compactRewrite` with a DV factory): rows a DV deletes are dropped; the rewritten files'
 *   DVs are removed (`removeDeletionVectorOf` / `notifyRemovedDeletionVector`).
 * - Index files: a fixed bucket keeps one DV index file (`BucketedDvMaintainer.writeDeletionVectorsIndex`,
 *   empty when no DV is left); a bucket-unaware table keeps its DV index entries per partition at bucket 0
 *   (`UNAWARE_BUCKET`). Java rewrites only the index files that held a rewritten file's DV; floe writes
 *   the partition's remaining DVs into one new file that replaces all of the partition's DV entries
 *   (readers see the same DVs; the commit then refuses any concurrent change to that partition's DVs).
 */
import type { DecisionStep } from '../../model/decision.js';
import { BucketDeletionVectors, IndexFileNamer, writeBucketDvIndex, type WrittenIndexFile } from './compact-dv.js';
import type { PaimonFile, PaimonTable } from './table.js';
import type { PaimonWriteIO } from './io.js';

export const DEFAULT_DELETE_RATIO_THRESHOLD = 0.2;

export interface UnawareDvPickOptions {
  minFileNum: number;
  targetFileSize: number;
  openFileCost: number;
  /** `compaction.delete-ratio-threshold` */
  deleteRatioThreshold: number;
}

/** `tooHighDeleteRatio`: an unknown cardinality counts as too high, as in Java. */
function tooHighDeleteRatio(f: PaimonFile, threshold: number): boolean {
  if (!f.dv) return false;
  return f.dv.cardinality === undefined || Number(f.dv.cardinality) > Number(f.meta.rowCount) * threshold;
}

const sizeOf = (fs: readonly PaimonFile[]) => fs.reduce((n, f) => n + Number(f.meta.fileSize), 0);

/**
 * `packInDeletionVectorVMode` for one partition. `packRest` packs the files without a DV (the coordinator's
 * plain `pack`). Returns the picked files (unsorted) and the trail.
 */
export function pickUnawareAppendWithDvs(
  files: readonly PaimonFile[],
  o: UnawareDvPickOptions,
  packRest: (rest: PaimonFile[]) => { files: PaimonFile[]; trail: DecisionStep[] },
): { files: PaimonFile[]; trail: DecisionStep[] } {
  const limit = Math.floor(o.targetFileSize / 10) * 7;
  const candidates = files.filter(
    (f) => Number(f.meta.fileSize) < limit || tooHighDeleteRatio(f, o.deleteRatioThreshold),
  );
  const groups = new Map<string, PaimonFile[]>();
  const rest: PaimonFile[] = [];
  for (const f of candidates) {
    if (f.dv) (groups.get(f.dv.indexFile) ?? groups.set(f.dv.indexFile, []).get(f.dv.indexFile)!).push(f);
    else rest.push(f);
  }
  const withDv = candidates.length - rest.length;
  const trail: DecisionStep[] = [
    {
      gate: 'input',
      detail: `${files.length} file(s); ${candidates.length} take part (below ${limit} B, or more than ${o.deleteRatioThreshold} of their rows deleted): ${withDv} with a deletion vector in ${groups.size} index file(s), ${rest.length} without`,
      outcome: 'info',
    },
  ];
  const picked: PaimonFile[] = [];
  const dvGroups = [...groups.values()].sort((a, b) => sizeOf(a) - sizeOf(b));
  let bin: PaimonFile[] = [];
  let total = 0;
  for (const g of dvGroups) {
    for (const f of g) {
      bin.push(f);
      total += Number(f.meta.fileSize) + o.openFileCost;
    }
    if (bin.length > 1 && total >= o.targetFileSize * 2) {
      picked.push(...bin);
      bin = [];
      total = 0;
    }
  }
  picked.push(...bin);
  if (withDv)
    trail.push({
      gate: 'deletion-vectors',
      detail: `${withDv} file(s) with a deletion vector are always compacted (their deleted rows dropped)`,
      outcome: 'pick',
    });
  if (rest.length > 1) {
    const r = packRest(rest);
    trail.push(...r.trail.filter((s) => s.gate !== 'input'));
    picked.push(...r.files);
  } else if (rest.length) {
    trail.push({ gate: 'min-file-num', detail: 'one file without a deletion vector: left alone', outcome: 'skip' });
  }
  return { files: picked, trail };
}

/** The DVs of one partition/bucket while its files are rewritten. */
export class AppendDvRewrite {
  private constructor(
    private readonly table: PaimonTable,
    private readonly partition: Uint8Array,
    private readonly bucket: number,
    private readonly dvs: BucketDeletionVectors,
  ) {}

  static async restore(table: PaimonTable, partition: Uint8Array, bucket: number): Promise<AppendDvRewrite> {
    return new AppendDvRewrite(table, partition, bucket, await BucketDeletionVectors.restore(table, partition, bucket));
  }

  /**
   * After the rewrite: the rewritten files' DVs go away; when that changed anything, the remaining DVs
   * are written into one new index file (its entry replaces the partition/bucket's DV entries).
   */
  async finish(rewritten: readonly PaimonFile[], storage: PaimonWriteIO): Promise<WrittenIndexFile | undefined> {
    for (const f of rewritten) this.dvs.remove(f.meta.fileName);
    if (!this.dvs.isModified) return undefined;
    return writeBucketDvIndex(this.table, storage, new IndexFileNamer(), this.partition, this.bucket, this.dvs);
  }
}
