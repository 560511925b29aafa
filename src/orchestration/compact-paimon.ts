/**
 * `floe compact <paimon-table>`: per bucket, the universal picker (primary-key tables) or the append
 * bin-packing rules choose what to compact; MergeTreeCompactTask's rules split the unit into upgrades
 * and merges; merged files are written in Paimon's layout; one COMPACT snapshot commits every bucket.
 *
 * The steps live in paimon-compact/: open.ts (table and report), bucket-plan.ts (what each bucket does),
 * bucket-rewrite.ts (the rewrites and the commit's entries), outcome.ts (how a run ends, shared with the
 * sort path in compact-paimon-sort.ts); the commit is connectors/paimon/commit-compact.ts.
 *
 * floe acts as Paimon's dedicated compaction job: `write-only=true` tables are compacted (that option
 * only stops the writers from compacting). Tables whose compaction must also produce changelog or
 * deletion vectors, and options floe does not implement, are refused with the reason.
 */
import { didYouMean } from '../../util/did-you-mean.js';
import { FloeError, isFloeError } from '../../util/errors.js';
import type { DecisionStep } from '../core/planning/plan.js';
import { parseMemorySize } from '../../util/units.js';
import { safeEmitter, type ProgressListener } from '../core/execution/events.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { partitionFields, toTableModel, type PaimonTable } from '../../connectors/paimon/table.js';
import { compileFilter, filterColumns } from '../core/planning/predicate.js';
import { formatTypedValue } from '../core/planning/partition-label.js';
import type { FieldType } from '../../model/index.js';
import type { PaimonField } from '../../connectors/paimon/types.js';
import type { PaimonIO } from '../../connectors/paimon/io.js';
import type { PaimonCommitLock, PaimonSnapshotCommitter } from '../../connectors/paimon/commit-lock.js';
import { POSTPONE_BUCKET } from '../../connectors/paimon/paths.js';
import { createMergeFunction } from '../../connectors/paimon/merge-engines.js';
import { DEFAULT_APPEND_TARGET_FILE_SIZE } from '../../connectors/paimon/compact-append.js';
import {
  arrowTypeForPaimon,
  assertNestedLayoutsMatch,
  dataWriteSettings,
} from '../../connectors/paimon/write-data-file.js';
import { commitPaimonSnapshot, type PaimonCommitRequest } from '../../connectors/paimon/commit-compact.js';
import { assertDeletionVectorsCompactable } from '../../connectors/paimon/compact-dv.js';
import { assertChangelogCompactable } from '../../connectors/paimon/compact-changelog.js';
import { cancelledError } from './cancel.js';
import type { CancelInfo, TaskOutcome } from './task-outcomes.js';
import { assertManifestWritable } from '../../connectors/paimon/manifest.js';
import { assertSortCompactable, type PaimonSortRequest } from './paimon-compact/sort-compact.js';
import { compactPaimonSorted } from './compact-paimon-sort.js';
import { openForCompaction, startReport } from './paimon-compact/open.js';
import {
  bucketPlanContext,
  bucketTaskId,
  planBuckets,
  planEvent,
  type BucketWork,
} from './paimon-compact/bucket-plan.js';
import {
  compactCommitRequest,
  emptyOutputs,
  rewriteBuckets,
  rewriteRun,
  type RewriteRun,
} from './paimon-compact/bucket-rewrite.js';
import { finished, recordCommit, removeUnpublished, skippedTasks, statsAfter } from './paimon-compact/outcome.js';

export const DEFAULT_PK_TARGET_FILE_SIZE = 128 * 1024 * 1024;
/** Re-plans of a compaction whose commit lost a deletion-vector race (compactPaimon). */
export const DEFAULT_PAIMON_REPLANS = 3;

/** [seam] The part of a compaction commit that one run's rewrite step produced (no table, no storage). */
export type DeferredPaimonCommit = Pick<PaimonCommitRequest, 'changes' | 'changelog' | 'deletionVectors'>;

export interface PaimonCompactOptions {
  /** Full compaction of every bucket (`triggerCompaction(true)`), instead of what Paimon's picker would do. */
  full?: boolean;
  /**
   * Partition filter, in the grammar of Iceberg's `--where` (`self-optimizing.filter`): only buckets of
   * matching partitions are planned. It may name partition columns only — a bucket is compacted whole.
   */
  where?: string;
  dryRun?: boolean;
  explain?: boolean;
  /** The picker's clock (optimization interval, off-peak hours). */
  nowMs?: number;
  onProgress?: ProgressListener;
  /** Table option overrides (e.g. num-sorted-run.compaction-trigger) layered over the table's own. */
  options?: Record<string, string>;
  fileIO?: FileIO;
  io?: PaimonIO;
  commitUser?: string;
  maxRetries?: number;
  /** Test hook passed to the committer. */
  beforePublish?: (id: bigint) => Promise<void>;
  /**
   * Re-plans after a commit abandoned because another writer changed the deletion vector of a file being
   * rewritten (default DEFAULT_PAIMON_REPLANS); then the conflict is reported, naming the files.
   */
  maxReplans?: number;
  /** The catalog's commit lock (Paimon JDBC catalog with `lock.enabled`), held around publishing. */
  commitLock?: PaimonCommitLock;
  /** The catalog that publishes snapshots itself (Paimon REST catalog): commits go through it. */
  committer?: PaimonSnapshotCommitter;
  /** [seam] Open the table at this snapshot (the distributed seam's plan base) instead of the latest. */
  snapshotId?: bigint;
  /** [seam] Rewrite only these planned tasks (ids as in `report.tasks`); the other buckets stay as they are. */
  onlyTasks?: readonly string[];
  /** [seam] Output file names carry this instead of a random id (the seam passes `floe-run-<runId>-<attemptId>`). */
  fileId?: string;
  /** [seam] Write the outputs but do not commit: what the commit would add and remove goes to `report.deferredCommit`. */
  deferCommit?: boolean;
  /**
   * Cancels the job (src/orchestration/cancel.ts): checked before each bucket and before the commit; the
   * files written so far are removed and `cancelledError` is thrown. A cancel once the commit started lets
   * it finish; the report then carries `cancelled`.
   */
  signal?: AbortSignal;
  /** [sort] Sort compaction (`--strategy sort|zorder|hilbert`, Paimon's sort_compact): compact-paimon-sort.ts. */
  sort?: PaimonSortRequest;
}

export interface PaimonRunReport {
  level: number;
  files: number;
  bytes: number;
}

export interface PaimonBucketReport {
  partition: unknown[];
  /** "dt=2024-01-02, region=eu" — dates and timestamps as text (src/core/planning/partition-label.ts). */
  partitionLabel: string;
  bucket: number;
  /** Sorted runs before compaction, newest first. */
  runs: PaimonRunReport[];
  /** Every gate the picker asked. */
  decision: DecisionStep[];
  compact: boolean;
  outputLevel?: number;
  dropDelete?: boolean;
  /** Upgrades and merges the unit turns into. */
  steps: DecisionStep[];
  filesBefore: string[];
  filesAfter: string[];
}

export interface PaimonCompactReport {
  table: string;
  tableKind: 'primary-key' | 'append';
  mergeEngine?: string;
  dryRun: boolean;
  full: boolean;
  /** The partition filter given (`--where`), if any. */
  where?: string;
  baseSnapshotId?: string;
  snapshotId?: string;
  commitAttempts?: number;
  /** Plans made again after a deletion-vector race abandoned a commit (absent: none). */
  replans?: number;
  /** Rows other writers deleted (DVs) meanwhile in files this run replaced, carried over to its outputs (absent: none). */
  carriedDeletes?: number;
  buckets: PaimonBucketReport[];
  before: { files: number; bytes: number; records: number };
  after?: { files: number; bytes: number; records: number };
  rowsIn: number;
  rowsOut: number;
  bytesRead: number;
  bytesWritten: number;
  durationMs: number;
  /** Every compacted bucket as a task with its outcome (task-outcomes.ts); ids as in progress events. */
  tasks?: TaskOutcome[];
  /** Set when a cancel came once the commit had started: the commit finished. */
  cancelled?: CancelInfo;
  /** [seam] With `deferCommit`: the commit's changes, for src/distributed/paimon-seam.ts to commit later. */
  deferredCommit?: DeferredPaimonCommit;
  /** [sort] The sort compaction run: floe's strategy, Paimon's order_strategy name and the row order. */
  sort?: { strategy: string; orderStrategy: string; order: string };
}

const bool = (o: Record<string, string>, k: string) => (o[k] ?? 'false').trim().toLowerCase() === 'true';

/** Throws for tables floe must not compact; the message says why and names the option. */
export function assertCompactable(table: PaimonTable): void {
  const o = table.schema.options;
  const loc = table.location;
  // floe writes Avro manifests; Java Paimon reads manifests in the table's configured format only
  assertManifestWritable(o, loc);
  const refuse = (why: string, option: string): never => {
    throw new FloeError('Unsupported', `cannot compact Paimon table ${loc}: ${why}`, {
      context: { table: loc, option, value: o[option] },
    });
  };
  const producer = (o['changelog-producer'] ?? 'none').toLowerCase();
  // [changelog] lookup and full-compaction changelog is produced while compacting (compact-changelog.ts)
  if (producer === 'lookup' || producer === 'full-compaction') {
    if (producer === 'full-compaction' && bool(o, 'deletion-vectors.enabled'))
      refuse(
        'changelog-producer=full-compaction together with deletion-vectors.enabled is invalid (Java Paimon allows DVs with none/input/lookup only)',
        'changelog-producer',
      );
    assertChangelogCompactable(table);
  }
  // [dv] lookup compaction maintaining the DVs (compact-dv.ts); what it cannot do is refused there
  if (bool(o, 'deletion-vectors.enabled')) assertDeletionVectorsCompactable(table);
  if (o['record-level.expire-time'])
    refuse(
      'record-level.expire-time is set; floe does not expire records while compacting',
      'record-level.expire-time',
    );
  if (bool(o, 'row-tracking.enabled')) refuse('row-tracking.enabled=true is not supported', 'row-tracking.enabled');
  if (bool(o, 'data-evolution.enabled'))
    refuse('data-evolution.enabled=true is not supported', 'data-evolution.enabled');
  if (o.bucket !== undefined && Number(o.bucket) === POSTPONE_BUCKET)
    refuse('bucket=-2 (postpone) tables need their files redistributed into buckets, which floe does not do', 'bucket');
  if (table.schema.primaryKeys.length) createMergeFunction(table.schema.fields, table.schema.primaryKeys, o, loc);
  dataWriteSettings(table.schema, loc);
  for (const f of table.schema.fields)
    arrowTypeForPaimon(f.type, `cannot compact Paimon table ${loc}: column ${f.name}`);
  assertNestedLayoutsMatch(table);
  // [dv] append tables too (append-dv.ts): deleted rows are dropped, the DV index rewritten
  if (table.files.some((f) => f.dv) && !bool(o, 'deletion-vectors.enabled'))
    refuse('some files carry deletion vectors but deletion-vectors.enabled is not true', 'deletion-vectors.enabled');
}

/**
 * `--where` on Paimon: the predicate is judged on each bucket's partition values (identity columns), with
 * the same parser and evaluator as Iceberg's filter. Non-partition columns are refused: a bucket is
 * compacted as a whole, so a row-level predicate could not be honoured.
 */
async function partitionSelector(table: PaimonTable, where: string): Promise<(partition: unknown[]) => boolean> {
  const keys = table.schema.partitionKeys;
  const lower = new Set(keys.map((k) => k.toLowerCase()));
  for (const c of filterColumns(where)) {
    if (!lower.has(c.toLowerCase())) {
      throw new FloeError(
        'InvalidArgument',
        `--where ${JSON.stringify(where)}: column ${c} is not a partition column${didYouMean(c, keys)} of Paimon table ${table.location} ` +
          `(partition keys: ${keys.length ? keys.join(', ') : 'none — the table is unpartitioned'}); Paimon compaction selects whole partitions`,
        { context: { table: table.location, column: c } },
      );
    }
  }
  const model = await toTableModel({ ...table, files: [] }, { allSnapshots: false });
  const matches = compileFilter(where, model);
  return (partition) =>
    matches({
      content: 'data',
      path: '',
      format: 'parquet',
      sizeBytes: 0,
      recordCount: 0,
      specId: 0,
      partition,
      dataSequenceNumber: 0n,
      fileSequenceNumber: 0n,
    });
}

function targetFileSize(o: Record<string, string>, pk: boolean): number {
  const v = o['target-file-size'];
  return v ? parseMemorySize(v) : pk ? DEFAULT_PK_TARGET_FILE_SIZE : DEFAULT_APPEND_TARGET_FILE_SIZE;
}

export async function compactPaimon(location: string, opts: PaimonCompactOptions = {}): Promise<PaimonCompactReport> {
  const started = Date.now();
  // A FileIO we create is ours to close (S3 clients keep sockets open); a caller's stays open.
  const ownFileIO = !opts.fileIO;
  const fileIO = opts.fileIO ?? new FileIO();
  // a run pinned to a snapshot or committing elsewhere (the distributed seam) is not re-planned here
  const replans = opts.snapshotId !== undefined || opts.deferCommit ? 0 : (opts.maxReplans ?? DEFAULT_PAIMON_REPLANS);
  try {
    for (let n = 0; ; n++) {
      try {
        const report = await compactWith(location, opts, fileIO, opts.io ?? fileIO, started);
        if (n > 0) report.replans = n;
        return report;
      } catch (e) {
        if (!isFloeError(e, 'CommitConflict') || e.context?.replannable !== true) throw e;
        // the compaction's own files are gone (abandoned commit); plan again on the newest snapshot
        if (n >= replans) {
          if (n === 0) throw e;
          throw new FloeError(
            'CommitConflict',
            `${e.message} (re-planned ${n} time${n > 1 ? 's' : ''}, each time raced)`,
            {
              context: { ...e.context, replans: n },
              cause: e,
              retryable: false,
            },
          );
        }
      }
    }
  } finally {
    if (ownFileIO) fileIO.destroy();
  }
}

async function compactWith(
  location: string,
  opts: PaimonCompactOptions,
  fileIO: FileIO,
  io: PaimonIO,
  started: number,
): Promise<PaimonCompactReport> {
  const emit = safeEmitter(opts.onProgress);
  const table = await openForCompaction(location, opts, io);
  const options = table.schema.options;
  const pk = table.schema.primaryKeys.length > 0;
  const report = startReport(table, opts);
  const selected = opts.where !== undefined ? await partitionSelector(table, opts.where) : () => true;
  if (opts.sort) assertSortCompactable(table, opts.sort.strategy);
  if (!table.snapshot) return finished(report, started);
  report.baseSnapshotId = String(table.snapshot.id);
  assertCompactable(table);
  const labelOf = paimonPartitionLabeler(partitionFields(table.schema));
  // before any data file is written: the snapshot's create-if-absent must be atomic on this store (unless every
  // writer serialises through the catalog's lock)
  if (!opts.dryRun && !opts.commitLock && !opts.committer)
    await fileIO.requireConditionalCreate(table.location, 'Paimon');
  if (opts.sort) {
    const input = { table, opts: { ...opts, sort: opts.sort }, report, fileIO, selected, labelOf, started };
    return compactPaimonSorted({ ...input, targetFileSize: targetFileSize(options, pk) });
  }

  const nowMs = opts.nowMs ?? Date.now();
  const target = targetFileSize(options, pk);
  const run = { full: !!opts.full, where: opts.where, nowMs, targetFileSize: target, selected, labelOf };
  const plan = bucketPlanContext(table, run);
  const work = planBuckets(plan);
  report.buckets = work.map((w) => w.report);
  const todo = work.filter(
    (w) => (w.steps || w.appendFiles) && (!opts.onlyTasks || opts.onlyTasks.includes(bucketTaskId(w))), // [seam]
  );
  emit(planEvent(todo));
  const taskKind = pk ? 'universal' : 'append';
  if (opts.dryRun || !todo.length) {
    report.tasks = skippedTasks(todo.map(bucketTaskId), taskKind, 'dry run: nothing was written');
    return finished(report, started);
  }
  const rewrite = rewriteRun(
    { table, storage: fileIO, modes: plan.modes, targetFileSize: target, nowMs, report, emit },
    opts.fileId,
  );
  return rewriteAndCommit(rewrite, todo, taskKind, opts, started);
}

/** Rewrites the buckets, then commits them in one COMPACT snapshot — or, [seam] deferred, hands the commit back. */
async function rewriteAndCommit(
  run: RewriteRun,
  todo: readonly BucketWork[],
  taskKind: string,
  opts: PaimonCompactOptions,
  started: number,
): Promise<PaimonCompactReport> {
  const { table, report } = run;
  const out = emptyOutputs();
  try {
    await rewriteBuckets(run, todo, out, opts.signal);
    if (opts.signal?.aborted) throw cancelledError(table.location, out.written.length, opts.signal.reason);
    const request = compactCommitRequest(run, opts, out);
    const ids = todo.map(bucketTaskId);
    if (opts.deferCommit) {
      // [seam] the rewrite step of a distributed run: its files stay for the run's commit step
      report.tasks = skippedTasks(ids, taskKind, 'written, not committed: the run commits it');
      const { changes, changelog, deletionVectors } = request;
      report.deferredCommit = {
        changes,
        ...(changelog ? { changelog } : {}),
        ...(deletionVectors ? { deletionVectors } : {}),
      };
      return finished(report, started);
    }
    recordCommit(report, await commitPaimonSnapshot(request), ids, taskKind, opts.signal, run.emit);
  } catch (e) {
    // the new data, changelog and [dv] index files
    await removeUnpublished(e, run.storage, [...out.written.map((w) => w.path), ...out.indexFiles.map((x) => x.path)]);
    throw e;
  }
  report.after = statsAfter(table.files, out.deletes, out.adds);
  return finished(report, started);
}

const fmtBytes = (n: number) =>
  n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : n >= 1024 ? `${(n / 1024).toFixed(1)} KiB` : `${n} B`;
/** Paimon partition values as text: DATE days and TIMESTAMP micros/nanos as ISO, the rest as they are. */
export function paimonPartitionLabeler(fields: readonly PaimonField[]): (partition: unknown[]) => string {
  const types = fields.map((f): FieldType | undefined => {
    const t = f.type;
    const ns = 'precision' in t && (t.precision ?? 6) > 6;
    if (t.root === 'DATE') return { kind: 'primitive', name: 'date' };
    if (t.root === 'TIMESTAMP') return { kind: 'primitive', name: ns ? 'timestamp_ns' : 'timestamp' };
    if (t.root === 'TIMESTAMP_LTZ') return { kind: 'primitive', name: ns ? 'timestamptz_ns' : 'timestamptz' };
    return undefined;
  });
  return (p) =>
    p.length ? p.map((v, i) => `${fields[i]?.name ?? i}=${formatTypedValue(types[i], v)}`).join(', ') : 'unpartitioned';
}

/** Text for `floe compact <paimon-table>` (plan, and results when it ran). */
export function renderPaimonPlan(report: PaimonCompactReport, explain: boolean): string {
  const lines: string[] = [];
  const kind =
    report.tableKind === 'primary-key' ? `primary-key table (merge-engine ${report.mergeEngine})` : 'append table';
  lines.push(
    `${report.dryRun ? 'dry run — nothing written: ' : ''}${report.full ? 'full ' : ''}${report.sort ? `sort compaction (order_strategy ${report.sort.orderStrategy}, ${report.sort.order}) ` : 'compaction '}of Paimon ${kind} ${report.table}`,
  );
  lines.push(
    `  base snapshot ${report.baseSnapshotId ?? '(none)'}; ${report.buckets.filter((b) => b.compact).length} of ${report.buckets.length} bucket(s) to compact${report.where !== undefined ? ` (--where ${report.where})` : ''}`,
  );
  for (const b of report.buckets) {
    const skippedByWhere = b.decision.some((s) => s.gate === 'where');
    const runs = skippedByWhere
      ? `${b.filesBefore.length} file(s)`
      : b.runs.map((r) => `L${r.level}:${r.files}f/${fmtBytes(r.bytes)}`).join(' ');
    const head = `  partition ${b.partitionLabel} bucket ${b.bucket}: ${skippedByWhere ? '' : 'runs '}${runs || '(empty)'}`;
    lines.push(
      b.compact
        ? `${head} → L${b.outputLevel}${b.dropDelete ? ' (drop deletes)' : ''}`
        : skippedByWhere
          ? `${head} → not selected by --where`
          : `${head} → nothing to do`,
    );
    if (explain) {
      for (const s of b.decision) lines.push(`      ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
      for (const s of b.steps) lines.push(`      ${s.outcome.padEnd(4)} ${s.gate}: ${s.detail}`);
      if (b.compact && !report.dryRun) lines.push(`      files ${b.filesBefore.length} → ${b.filesAfter.length}`);
    }
  }
  const after = report.after ?? report.before;
  lines.push(
    `  files ${report.before.files} → ${report.dryRun || !report.after ? '(unchanged)' : after.files}, bytes ${fmtBytes(report.before.bytes)} → ${report.after ? fmtBytes(after.bytes) : '(unchanged)'}, records ${report.before.records} → ${report.after ? after.records : '(unchanged)'}`,
  );
  if (!report.dryRun && report.snapshotId) {
    lines.push(
      `  read ${fmtBytes(report.bytesRead)} (${report.rowsIn} rows), wrote ${fmtBytes(report.bytesWritten)} (${report.rowsOut} rows); committed snapshot ${report.snapshotId} (${report.sort ? 'OVERWRITE' : 'COMPACT'}${report.commitAttempts && report.commitAttempts > 1 ? `, ${report.commitAttempts} attempts` : ''}${report.carriedDeletes ? `, ${report.carriedDeletes} concurrent delete(s) carried over` : ''}) in ${(report.durationMs / 1000).toFixed(1)} s`,
    );
  }
  return lines.join('\n');
}
