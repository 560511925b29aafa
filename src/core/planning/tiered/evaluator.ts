/**
 * Per-partition classification and triggers of Amoro's self-optimizing (apache/amoro
 * `CommonPartitionEvaluator` + `AbstractPartitionPlan.addFile`), restated:
 *
 * With T = target, F = T / fragment-ratio (integer), M = T × min-target-size-ratio:
 * - fragment: size ≤ F — always rewritten;
 * - undersized segment: F < size ≤ M — rewritten when `shouldRewrite`, else merged only if two fit a bin;
 * - target-size segment: size > M — rewritten when `shouldRewrite`, else its equality deletes are turned
 *   into position deletes when `shouldRewritePos`, else left alone.
 * `shouldRewrite`: in full mode, rewrite-all-files, or any delete, or not target-size; otherwise a
 * fragment, or position-deleted rows > records × duplicate-ratio ("duplicate ratio").
 * Triggers: full = full interval elapsed (then any delete / ≥ 2 fragments / ≥ 2 undersized / any rewrite
 * is enough); major = enough undersized content or any segment to rewrite; minor = fragments +
 * equality deletes ≥ file-count, or > 1 of them and the minor interval elapsed, or a segment with more
 * than one position delete file.
 */
import type { DataFile, DeleteFile, PartitionTuple } from '../../../../model/index.js';
import type { DecisionStep } from '../plan.js';
import type { TieredPolicy } from '../policy.js';
import { fragmentSize, minTargetSize } from '../policy.js';
import { isPositional } from '../deletes.js';
import { describeDuration } from '../../../../util/units.js';
import type { ResolvedTimes } from './state.js';

import type { FileWithDeletes } from '../file-deletes.js';

export type { FileWithDeletes };

/** How many equality and position-like (position deletes, DVs) deletes a segment has; `single` is the last of the latter. */
function deleteKinds(deletes: readonly DeleteFile[]): { eq: number; pos: number; single: DeleteFile | undefined } {
  let eq = 0;
  let pos = 0;
  let single: DeleteFile | undefined;
  for (const d of deletes) {
    if (d.content === 'equality-deletes') eq += 1;
    else {
      pos += 1;
      single = d;
    }
  }
  return { eq, pos, single };
}

export type OptimizingType = 'minor' | 'major' | 'full';

const KNOWN_EXT = /\.(parquet|avro|orc|puffin)$/i;

function fileName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/**
 * A position delete this optimizer (or Amoro) wrote for one data file: named
 * `<data file name without extension>-delete-…` (Amoro `TableFileUtil.isOptimizingPosDeleteFile`),
 * or file-scoped to it. Either is already in the compact form eq-to-pos would produce.
 */
export function isCompactPositionDelete(data: DataFile, del: DeleteFile): boolean {
  if (del.content === 'deletion-vector') return true;
  if (del.content !== 'position-deletes') return false;
  if (del.referencedDataFile === data.path) return true;
  const stem = fileName(data.path).replace(KNOWN_EXT, '');
  return fileName(del.path).startsWith(`${stem}-delete`);
}

/** Time since the last optimize of a kind; a time of 0 means none is known (Amoro's default). */
function sinceLast(sinceMs: number, atMs: number, kind: string): string {
  if (atMs <= 0)
    return `never ${kind} optimized (no last ${kind} optimize time recorded, so the interval counts as reached)`;
  return `${describeDuration(sinceMs)} since last ${kind} optimize (at ${new Date(atMs).toISOString()})`;
}

export class PartitionEvaluation {
  readonly fragmentBytes: number;
  readonly minTargetBytes: number;
  readonly full: boolean;

  fragmentCount = 0;
  fragmentSize = 0;
  rewriteSegmentCount = 0;
  rewriteSegmentSize = 0;
  undersizedCount = 0;
  undersizedSize = 0;
  rewritePosCount = 0;
  rewritePosSize = 0;
  combinePosCount = 0;
  min1 = Number.POSITIVE_INFINITY;
  min2 = Number.POSITIVE_INFINITY;
  private readonly countedDeletes = new Set<DeleteFile>();
  eqDeleteCount = 0;
  eqDeleteSize = 0;
  posDeleteCount = 0;
  posDeleteSize = 0;

  /** Buckets, in the order files were added. */
  readonly rewrite: FileWithDeletes[] = [];
  readonly undersized: FileWithDeletes[] = [];
  readonly rewritePos: FileWithDeletes[] = [];
  /** How many rewrite members are segments rewritten for their deletes (not fragments). */
  readonly rewriteIsSegment = new Set<DataFile>();
  /**
   * Segments in `rewritePos` (or lone undersized ones) whose only reason for conversion is equality
   * deletes: with batching on they wait until `conversionDue()`.
   */
  readonly eqOnly = new Set<DataFile>();
  /** Equality deletes attached to eq-only segments, and those attached to any other file. */
  private readonly batchedEq = new Set<DeleteFile>();
  private readonly otherEq = new Set<DeleteFile>();
  /** Σ over eq-only segments of the bytes a reader pays for their equality deletes (size + open cost each). */
  pendingEqReadBytes = 0;
  /** Σ of the eq-only segments' sizes. */
  eqOnlyBytes = 0;

  constructor(
    readonly key: string,
    readonly specId: number,
    readonly partition: PartitionTuple,
    readonly policy: TieredPolicy,
    readonly nowMs: number,
    readonly times: ResolvedTimes,
    /** When a delete file was committed (ms), if known: ages pending equality deletes for batching. */
    readonly committedAtMs: (d: DeleteFile) => number | undefined = () => undefined,
  ) {
    this.fragmentBytes = fragmentSize(policy);
    this.minTargetBytes = minTargetSize(policy);
    this.full = policy.fullTriggerIntervalMs >= 0 && nowMs - times.lastFullMs > policy.fullTriggerIntervalMs;
  }

  isFragment(f: DataFile): boolean {
    return f.sizeBytes <= this.fragmentBytes;
  }

  isUndersized(f: DataFile): boolean {
    return f.sizeBytes > this.fragmentBytes && f.sizeBytes <= this.minTargetBytes;
  }

  positionDeletedRecords(deletes: readonly DeleteFile[]): number {
    let n = 0;
    for (const d of deletes) if (isPositional(d)) n += d.recordCount;
    return n;
  }

  shouldRewrite(f: DataFile, deletes: readonly DeleteFile[]): boolean {
    if (this.full) {
      return this.policy.fullRewriteAllFiles || deletes.length > 0 || this.isFragment(f) || this.isUndersized(f);
    }
    if (this.isFragment(f)) return true;
    return this.positionDeletedRecords(deletes) > f.recordCount * this.policy.majorDuplicateRatio;
  }

  /** Whether a segment's deletes should be rewritten into one compact position delete (eq-to-pos). */
  shouldRewritePos(f: DataFile, deletes: readonly DeleteFile[], count = true): boolean {
    const { eq, pos, single } = deleteKinds(deletes);
    if (pos > 1) {
      if (count) this.combinePosCount += 1;
      return true;
    }
    if (eq > 0) return true;
    // One position delete (or DV) that is not yet per-file: Amoro rewrites it into a per-file one.
    if (pos === 1) return !isCompactPositionDelete(f, single!);
    return false;
  }

  private countDeletes(deletes: readonly DeleteFile[]): void {
    for (const d of deletes) {
      if (this.countedDeletes.has(d)) continue;
      this.countedDeletes.add(d);
      if (d.content === 'equality-deletes') {
        this.eqDeleteCount += 1;
        this.eqDeleteSize += d.sizeBytes;
      } else {
        this.posDeleteCount += 1;
        this.posDeleteSize += d.sizeBytes;
      }
    }
  }

  /** Whether batched conversion applies at all (floe's rule on, not full mode). */
  batching(): boolean {
    return this.policy.eqToPosDeleteRatio >= 0 && !this.full;
  }

  /**
   * A segment converted only because of equality deletes: it has one, and no position-delete reason
   * (more than one position file, or one that is not yet per file) of its own.
   */
  private onlyEqualityReason(f: DataFile, deletes: readonly DeleteFile[]): boolean {
    const { eq, pos, single } = deleteKinds(deletes);
    if (eq === 0 || pos > 1) return false;
    return pos === 0 || isCompactPositionDelete(f, single!);
  }

  /** Records a segment that only equality deletes send to conversion (see `conversionDue`). */
  noteEqOnly(f: DataFile, deletes: readonly DeleteFile[]): void {
    if (this.eqOnly.has(f)) return;
    this.eqOnly.add(f);
    this.eqOnlyBytes += f.sizeBytes;
    for (const d of deletes) {
      if (d.content !== 'equality-deletes') continue;
      this.batchedEq.add(d);
      this.pendingEqReadBytes += d.sizeBytes + this.policy.openFileCostBytes;
    }
  }

  /** Whether conversion of `f` for these deletes would wait for a batch. */
  isBatchedConversion(f: DataFile, deletes: readonly DeleteFile[]): boolean {
    return this.batching() && this.onlyEqualityReason(f, deletes);
  }

  /** Delete-to-data ratio of the eq-only segments: reader bytes for their equality deletes per data byte. */
  deleteToDataRatio(): number {
    return this.eqOnlyBytes > 0 ? this.pendingEqReadBytes / this.eqOnlyBytes : 0;
  }

  /** Age of the oldest equality delete waiting on an eq-only segment; Infinity when a commit time is unknown. */
  oldestPendingEqAgeMs(): number {
    let oldest = 0;
    for (const d of this.batchedEq) {
      const at = this.committedAtMs(d);
      if (at === undefined) return Number.POSITIVE_INFINITY;
      oldest = Math.max(oldest, this.nowMs - at);
    }
    return oldest;
  }

  /**
   * Batched equality→position conversion (floe): eq-only segments are converted together once the
   * delete-to-data ratio reaches `minor.eq-to-pos.delete-ratio` — readers then pay that share of the
   * data's bytes again for the deletes — or once the oldest pending equality delete has waited longer
   * than `minor.trigger.interval` (an unknown commit time counts as waited, Amoro's 0 default).
   * Converting at every commit re-reads every segment's key columns each time while it removes only
   * that commit's few delete files.
   */
  conversionDue(): boolean {
    if (!this.batching() || this.eqOnly.size === 0) return true;
    if (this.deleteToDataRatio() >= this.policy.eqToPosDeleteRatio) return true;
    const interval = this.policy.minorTriggerIntervalMs;
    return interval >= 0 && this.oldestPendingEqAgeMs() > interval;
  }

  /**
   * The batch fires on its own (makes the partition necessary): the ratio is reached, or a delete of
   * known commit time has waited longer than the minor interval. An unknown time only lets a partition
   * that is necessary anyway convert, as Amoro would.
   */
  batchTriggered(): boolean {
    if (!this.batching() || this.eqOnly.size === 0) return false;
    if (this.deleteToDataRatio() >= this.policy.eqToPosDeleteRatio) return true;
    const age = this.oldestPendingEqAgeMs();
    return this.policy.minorTriggerIntervalMs >= 0 && Number.isFinite(age) && age > this.policy.minorTriggerIntervalMs;
  }

  private noteOtherEq(deletes: readonly DeleteFile[]): void {
    for (const d of deletes) if (d.content === 'equality-deletes') this.otherEq.add(d);
  }

  add(e: FileWithDeletes): void {
    const { file: f, deletes } = e;
    if (!(this.isBatchedConversion(f, deletes) && !this.isFragment(f) && !this.shouldRewrite(f, deletes)))
      this.noteOtherEq(deletes);
    if (this.isFragment(f)) {
      this.fragmentCount += 1;
      this.fragmentSize += f.sizeBytes;
      this.countDeletes(deletes);
      this.rewrite.push(e);
      return;
    }
    if (this.isUndersized(f)) {
      this.countDeletes(deletes);
      if (this.shouldRewrite(f, deletes)) {
        this.rewriteSegmentCount += 1;
        this.rewriteSegmentSize += f.sizeBytes;
        this.rewrite.push(e);
        this.rewriteIsSegment.add(f);
        return;
      }
      if (f.sizeBytes < this.min1) {
        this.min2 = this.min1;
        this.min1 = f.sizeBytes;
      } else if (f.sizeBytes < this.min2) {
        this.min2 = f.sizeBytes;
      }
      this.undersizedCount += 1;
      this.undersizedSize += f.sizeBytes;
      this.undersized.push(e);
      return;
    }
    if (this.shouldRewrite(f, deletes)) {
      this.rewriteSegmentCount += 1;
      this.rewriteSegmentSize += f.sizeBytes;
      this.countDeletes(deletes);
      this.rewrite.push(e);
      this.rewriteIsSegment.add(f);
      return;
    }
    if (this.shouldRewritePos(f, deletes)) {
      this.rewritePosCount += 1;
      this.rewritePosSize += f.sizeBytes;
      this.countDeletes(deletes);
      this.rewritePos.push(e);
      if (this.isBatchedConversion(f, deletes)) this.noteEqOnly(f, deletes);
    }
    // else: stays as it is; its deletes stay needed (the removal rule sees it as a surviving file).
  }

  anyDelete(): boolean {
    return this.eqDeleteCount > 0 || this.posDeleteCount > 0;
  }

  enoughContent(): boolean {
    return this.undersizedSize >= this.policy.targetSizeBytes && this.min1 + this.min2 <= this.policy.targetSizeBytes;
  }

  majorNecessary(): boolean {
    return this.enoughContent() || this.rewriteSegmentCount > 0;
  }

  reachMinorInterval(): boolean {
    return (
      this.policy.minorTriggerIntervalMs >= 0 &&
      this.nowMs - this.times.lastMinorMs > this.policy.minorTriggerIntervalMs
    );
  }

  /** Equality deletes that count toward the minor file count: while a batch waits, not those only on its segments. */
  minorEqDeleteCount(): number {
    return this.conversionDue() ? this.eqDeleteCount : this.otherEq.size;
  }

  minorNecessary(): boolean {
    const small = this.fragmentCount + this.minorEqDeleteCount();
    return (
      small >= this.policy.minorTriggerFileCount ||
      (small > 1 && this.reachMinorInterval()) ||
      this.combinePosCount > 0 ||
      this.batchTriggered()
    );
  }

  fullNecessary(): boolean {
    if (!this.full) return false;
    return (
      this.anyDelete() ||
      this.fragmentCount >= 2 ||
      this.undersizedCount >= 2 ||
      this.rewriteSegmentCount > 0 ||
      this.rewritePosCount > 0
    );
  }

  necessary(): boolean {
    return this.full ? this.fullNecessary() : this.majorNecessary() || this.minorNecessary();
  }

  type(): OptimizingType {
    return this.fullNecessary() ? 'full' : this.majorNecessary() ? 'major' : 'minor';
  }

  /** Amoro's partition cost: read + write of rewritten bytes, a tenth for eq-to-pos, deletes, open cost. */
  cost(): number {
    const files =
      this.fragmentCount +
      this.rewriteSegmentCount +
      this.undersizedCount +
      this.rewritePosCount +
      this.posDeleteCount +
      this.eqDeleteCount;
    return (
      (this.fragmentSize + this.rewriteSegmentSize + this.undersizedSize) * 2 +
      Math.floor(this.rewritePosSize / 10) +
      this.posDeleteSize +
      this.eqDeleteSize +
      files * this.policy.openFileCostBytes
    );
  }

  private explained: DecisionStep[] | undefined;

  /** `explain()` computed once; tasks of the partition share the step objects. */
  explanation(): readonly DecisionStep[] {
    return (this.explained ??= this.explain());
  }

  /** The decision steps that explain the verdict, with the numbers behind each. */
  explain(): DecisionStep[] {
    const p = this.policy;
    const steps: DecisionStep[] = [];
    steps.push({
      gate: 'classify',
      detail:
        `fragments ${this.fragmentCount} (≤ ${this.fragmentBytes} bytes), undersized ${this.undersizedCount} (≤ ${this.minTargetBytes}), ` +
        `segments to rewrite ${this.rewriteSegmentCount}, segments for eq-to-pos ${this.rewritePosCount}; ` +
        `equality deletes ${this.eqDeleteCount}, position deletes ${this.posDeleteCount}`,
      outcome: 'info',
      values: {
        fragments: this.fragmentCount,
        undersized: this.undersizedCount,
        rewriteSegments: this.rewriteSegmentCount,
        rewritePosSegments: this.rewritePosCount,
        eqDeletes: this.eqDeleteCount,
        posDeletes: this.posDeleteCount,
      },
    });
    const sinceFull = this.nowMs - this.times.lastFullMs;
    if (p.fullTriggerIntervalMs < 0) {
      steps.push({ gate: 'full-interval', detail: 'full.trigger.interval is off (-1)', outcome: 'fail' });
    } else {
      steps.push({
        gate: 'full-interval',
        detail: `${sinceLast(sinceFull, this.times.lastFullMs, 'full')} ${this.full ? '>' : '≤'} full.trigger.interval ${describeDuration(p.fullTriggerIntervalMs)}`,
        outcome: this.full ? 'pass' : 'fail',
        values: { sinceLastFullMs: sinceFull, intervalMs: p.fullTriggerIntervalMs },
      });
    }
    if (this.full) {
      const fired = this.fullNecessary();
      steps.push({
        gate: 'full-necessary',
        detail: fired
          ? `full optimize: deletes ${this.eqDeleteCount + this.posDeleteCount}, fragments ${this.fragmentCount}, undersized ${this.undersizedCount}, ` +
            `files to rewrite ${this.rewriteSegmentCount}, eq-to-pos ${this.rewritePosCount} (rewrite-all-files ${p.fullRewriteAllFiles})`
          : 'nothing to do in full mode: no deletes, < 2 fragments, < 2 undersized, no file to rewrite',
        outcome: fired ? 'pass' : 'fail',
      });
      return steps;
    }
    const enough = this.enoughContent();
    steps.push({
      gate: 'major-undersized-content',
      detail:
        `undersized total ${this.undersizedSize} ${this.undersizedSize >= p.targetSizeBytes ? '≥' : '<'} target ${p.targetSizeBytes}` +
        (this.undersizedCount >= 2
          ? `, two smallest ${this.min1} + ${this.min2} ${this.min1 + this.min2 <= p.targetSizeBytes ? '≤' : '>'} target`
          : ''),
      outcome: enough ? 'pass' : 'fail',
      values: { undersizedBytes: this.undersizedSize, targetBytes: p.targetSizeBytes },
    });
    steps.push({
      gate: 'major-duplicate-ratio',
      detail: `${this.rewriteSegmentCount} segments with position-deleted rows > ${p.majorDuplicateRatio} of their records`,
      outcome: this.rewriteSegmentCount > 0 ? 'pass' : 'fail',
      values: { segments: this.rewriteSegmentCount, duplicateRatio: p.majorDuplicateRatio },
    });
    if (this.batching() && this.eqOnly.size > 0) {
      const due = this.conversionDue();
      const ratio = this.deleteToDataRatio();
      const age = this.oldestPendingEqAgeMs();
      steps.push({
        gate: 'eq-to-pos-batch',
        detail:
          `${this.eqOnly.size} segments wait on ${this.batchedEq.size} equality deletes: delete-to-data ratio ${ratio.toFixed(3)} ` +
          `(reader bytes for the deletes ${this.pendingEqReadBytes} / segment bytes ${this.eqOnlyBytes}) ${ratio >= p.eqToPosDeleteRatio ? '≥' : '<'} ` +
          `minor.eq-to-pos.delete-ratio ${p.eqToPosDeleteRatio}; oldest pending delete ` +
          `${Number.isFinite(age) ? describeDuration(age) : 'of unknown age'} vs minor.trigger.interval ${describeDuration(p.minorTriggerIntervalMs)}` +
          (due ? ': convert now' : ': wait for a larger batch'),
        outcome: due ? 'pass' : 'skip',
        values: {
          segments: this.eqOnly.size,
          ratio,
          threshold: p.eqToPosDeleteRatio,
          ...(Number.isFinite(age) ? { oldestMs: age } : {}),
        },
      });
    }
    const minorEq = this.minorEqDeleteCount();
    const small = this.fragmentCount + minorEq;
    steps.push({
      gate: 'minor-file-count',
      detail: `fragments ${this.fragmentCount} + equality deletes ${minorEq} = ${small} ${small >= p.minorTriggerFileCount ? '≥' : '<'} minor.trigger.file-count ${p.minorTriggerFileCount}`,
      outcome: small >= p.minorTriggerFileCount ? 'pass' : 'fail',
      values: { smallFiles: small, threshold: p.minorTriggerFileCount },
    });
    const sinceMinor = this.nowMs - this.times.lastMinorMs;
    const interval = this.reachMinorInterval();
    steps.push({
      gate: 'minor-interval',
      detail:
        p.minorTriggerIntervalMs < 0
          ? 'minor.trigger.interval is off'
          : `${small} small files (need > 1); ${sinceLast(sinceMinor, this.times.lastMinorMs, 'minor')} ${interval ? '>' : '≤'} minor.trigger.interval ${describeDuration(p.minorTriggerIntervalMs)}`,
      outcome: small > 1 && interval ? 'pass' : 'fail',
      values: { smallFiles: small, sinceLastMinorMs: sinceMinor, intervalMs: p.minorTriggerIntervalMs },
    });
    steps.push({
      gate: 'minor-combine-pos',
      detail: `${this.combinePosCount} segments with more than one position delete file`,
      outcome: this.combinePosCount > 0 ? 'pass' : 'fail',
      values: { segments: this.combinePosCount },
    });
    return steps;
  }
}
