/**
 * The compact job on one table, whatever its format: Iceberg through compactIceberg (or, with `deletesOnly`,
 * rewritePositionDeletes), Paimon through compactPaimon. `floe compact` checks its flags and builds these
 * options; `floe serve` and the bindings (runMaintenanceJob) build them from a job spec. compactResult()
 * gives the same result fields for both formats, compactResultDocument() the floe-result/1 document.
 *
 * Each format's modules are loaded when a table of that format is compacted, so compacting an Iceberg
 * table never loads the Paimon adapter (and the reverse).
 */
import type { ProgressListener } from '../execution/events.js';
import type { CompactOptions, CompactReport } from '../orchestration/compact-iceberg.js';
import type { PaimonCompactOptions, PaimonCompactReport } from '../orchestration/compact-paimon.js';
import type { PaimonSortRequest } from '../../connectors/paimon/sort-compact.js';
import type { SortStrategyOptions } from '../planning/sort-planner.js';
import type { TieredState } from '../planning/tiered/index.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { accessOptionsOf } from './access-options.js';
import { withPlannerThreads } from './planner-threads.js';
import { tableFormatOf, type TableFormat } from './table-format.js';
import { isPaimonCatalogSpec, splitCatalogOptions, withPaimonCatalogTable } from './paimon-catalog.js';
import type { PaimonCommitLock, PaimonSnapshotCommitter } from '../../connectors/paimon/commit-lock.js';
import { compactExitCode, icebergCompactResult, paimonCompactResult, type CompactResult } from './compact-result.js';
import { resultDocument, type ResultDocument } from './result.js';

export interface CompactTableOptions extends AccessOptions {
  /** The table's format when the caller knows it; else detected (a catalog names Iceberg tables). */
  format?: TableFormat;
  /** Iceberg planner (default tiered). */
  strategy?: NonNullable<CompactOptions['strategy']>;
  /** Iceberg, strategy sort / zorder. */
  sort?: SortStrategyOptions;
  /** Paimon append tables: sort compaction (`--strategy sort|zorder|hilbert`, Paimon's sort_compact). */
  paimonSort?: PaimonSortRequest;
  /** Paimon: every bucket fully; Iceberg: bin-pack with rewrite-all. */
  full?: boolean;
  /** Planner / table properties (`-o key=value`), target size and filter already folded in. */
  options?: Record<string, string>;
  /** Paimon: partition filter (Iceberg reads it from `self-optimizing.filter` in `options`). */
  where?: string;
  dryRun?: boolean;
  /** Paimon: keep every decision in the report. */
  explain?: boolean;
  /** Iceberg: commit groups as they are written; `'hot'`: only on a table with recent writer commits. */
  partialProgress?: boolean | 'hot';
  /** Iceberg: leave partitions a writer wrote to in its last N commits / within T ms alone. */
  leaveNewest?: { commits?: number; withinMs?: number };
  /**
   * Re-plans of groups a concurrent commit invalidated before the conflict is reported (Iceberg:
   * compact-iceberg-replan.ts, default 3; Paimon: DV races, DEFAULT_PAIMON_REPLANS).
   */
  maxReplans?: number;
  /** Iceberg: tasks rewritten at once (default 2). */
  maxConcurrentGroups?: number;
  /**
   * Iceberg: worker threads for the rewrite step (`--parallelism`, compact-iceberg.ts); 1 runs it in this
   * process. Default 'auto': os.availableParallelism() threads for runs that read 64 MiB or more.
   */
  parallelism?: number | 'auto';
  onlyDanglingDeletes?: boolean;
  removeDanglingDeletes?: boolean;
  /** Iceberg: rewrite position delete files / deletion vectors only. */
  deletesOnly?: boolean;
  /** Iceberg tiered planner memory from the previous run. */
  tieredState?: TieredState;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Called once the table is found and opened, just before the compaction starts (may throw to stop). */
  beforeRun?: () => void;
  /** Paimon: the catalog lock to publish under (set from a `paimon-jdbc:` catalog). */
  commitLock?: PaimonCommitLock;
  /** Paimon: the catalog that publishes the snapshot (set from a `paimon-rest:` catalog). */
  paimonCommitter?: PaimonSnapshotCommitter;
}

/**
 * The target size and partition filter of a compaction request, as Iceberg planner properties: a target
 * size fills `self-optimizing.target-size` and `target-file-size-bytes` unless `-o` set them; a filter is
 * `self-optimizing.filter`. (`floe compact --target-size/--where` and job specs mean the same.)
 */
export function withIcebergTarget(
  options: Record<string, string>,
  targetBytes: number | undefined,
  where: string | undefined,
): Record<string, string> {
  if (targetBytes !== undefined) {
    options['self-optimizing.target-size'] ??= String(targetBytes);
    options['target-file-size-bytes'] ??= String(targetBytes);
  }
  if (where) options['self-optimizing.filter'] = where;
  return options;
}

/** `parquetCodec`: the Parquet codec this process decoded and encoded with (FLOE_PARQUET_CODEC, codec.ts). */
export type CompactRun = (
  | { format: 'iceberg'; report: CompactReport; formatVersion: number }
  | { format: 'paimon'; report: PaimonCompactReport }
) & { parquetCodec?: 'native' | 'wasm' };

export async function compactTable(ref: string, o: CompactTableOptions = {}): Promise<CompactRun> {
  const format = o.format ?? (await tableFormatOf(ref, o));
  const run = format === 'paimon' ? await compactPaimonTable(ref, o) : await compactIcebergTable(ref, o);
  const { parquetCodec } = await import('../../connectors/formats/parquet/codec.js');
  return { ...run, parquetCodec: parquetCodec().name };
}

async function compactPaimonTable(ref: string, o: CompactTableOptions): Promise<CompactRun> {
  if (isPaimonCatalogSpec(o.catalog)) {
    // `<database>.<table>` in a Paimon catalog: its location, and the catalog lock around the commit
    const { catalog, table } = splitCatalogOptions(o.options);
    return withPaimonCatalogTable(ref, { ...o, catalog: o.catalog, catalogOptions: catalog }, (t) =>
      compactPaimonTable(t.location, {
        ...o,
        options: table,
        catalog: undefined,
        ...(t.lock ? { commitLock: t.lock } : {}),
        ...(t.committer ? { paimonCommitter: t.committer } : {}),
      }),
    );
  }
  const { compactPaimon } = await import('../orchestration/compact-paimon.js');
  const files = fileIOFromEnv(o.locationMap);
  try {
    o.beforeRun?.();
    const popts: PaimonCompactOptions & { signal?: AbortSignal } = {
      full: !!o.full,
      dryRun: !!o.dryRun,
      ...(o.explain !== undefined ? { explain: o.explain } : {}),
      ...(o.commitLock ? { commitLock: o.commitLock } : {}),
      ...(o.paimonCommitter ? { committer: o.paimonCommitter } : {}),
      options: o.options ?? {},
      fileIO: files,
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
      ...(o.where !== undefined ? { where: o.where } : {}),
      ...(o.paimonSort ? { sort: o.paimonSort } : {}),
    };
    return { format: 'paimon', report: await compactPaimon(ref, popts) };
  } finally {
    files.destroy();
  }
}

async function compactIcebergTable(ref: string, o: CompactTableOptions): Promise<CompactRun> {
  const { openIcebergForWrite, requireCommitOps } = await import('../../connectors/iceberg/open-for-write.js');
  const { compactIcebergReplanning } = await import('../orchestration/compact-iceberg-replan.js');
  const opened = await openIcebergForWrite(ref, o);
  try {
    o.beforeRun?.();
    // a dry run commits nothing, so it also runs on catalogs floe cannot commit to yet
    const ops = o.dryRun ? opened.ops : requireCommitOps(opened);
    const strategy = o.strategy ?? 'tiered';
    // the tiered input budget is per rewrite thread (planner-threads.ts); workers plan from these same options
    const options =
      strategy === 'tiered' && !o.full && !o.deletesOnly
        ? withPlannerThreads(o.options ?? {}, opened.table.metadata.properties, o.parallelism ?? 'auto')
        : (o.options ?? {});
    let report: CompactReport;
    if (o.deletesOnly) {
      const { rewritePositionDeletes } = await import('../orchestration/rewrite-position-deletes.js');
      report = await rewritePositionDeletes(opened.table, opened.io, ops!, {
        options,
        dryRun: !!o.dryRun,
        signal: o.signal,
      });
    } else {
      const copts: CompactOptions & { signal?: AbortSignal } = {
        strategy,
        ...(o.sort ? { sort: o.sort } : {}),
        ...(o.full ? { full: true } : {}),
        options,
        dryRun: !!o.dryRun,
        partialProgress: o.partialProgress === 'hot' ? 'hot' : !!o.partialProgress,
        ...(o.leaveNewest ? { leaveNewest: o.leaveNewest } : {}),
        maxConcurrentGroups: o.maxConcurrentGroups ?? 2,
        // worker threads open the table again the way it was opened here
        parallelism: o.parallelism ?? 'auto',
        source: { table: ref, access: accessOptionsOf(o) },
        ...(o.onlyDanglingDeletes !== undefined ? { onlyDanglingDeletes: o.onlyDanglingDeletes } : {}),
        ...(o.removeDanglingDeletes !== undefined ? { removeDanglingDeletes: o.removeDanglingDeletes } : {}),
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
        ...(o.tieredState ? { tieredState: o.tieredState } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      };
      // groups a concurrent commit invalidated (and that could not be carried over) are planned again
      report = await compactIcebergReplanning(opened.table, opened.io, ops!, {
        ...copts,
        ...(o.maxReplans !== undefined ? { maxReplans: o.maxReplans } : {}),
      });
    }
    return { format: 'iceberg', report, formatVersion: opened.table.metadata.formatVersion };
  } finally {
    opened.files.destroy();
  }
}

/** The compaction result fields, the same for both formats (schema/floe-result.schema.json `compact`). */
export function compactResult(run: CompactRun): CompactResult {
  const result =
    run.format === 'paimon' ? paimonCompactResult(run.report) : icebergCompactResult(run.report, run.formatVersion);
  return run.parquetCodec ? { ...result, parquetCodec: run.parquetCodec } : result;
}

/** The floe-result/1 document of a compaction (exit code 0, 1 or 3 by its task outcomes). */
export function compactResultDocument(
  result: CompactResult,
  exitCode: number = compactExitCode(result),
): ResultDocument {
  return resultDocument('compact', exitCode, result);
}
