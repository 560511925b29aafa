/**
 * The compact job on one table, whatever its format: Iceberg through compactIceberg (or, with `deletesOnly`,
 * rewritePositionDeletes), Paimon through compactPaimon. Every entry point describes the compaction as a
 * CompactSpec (src/orchestration/job-types.ts) — `floe compact` from its flags, runMaintenanceJob from a job
 * spec, library callers directly — and resolveCompactSpec turns it into the format's options. runCompaction
 * holds the table lease around it (src/lease/job-lease.ts); compactTable is the table work alone.
 * compactResult() gives the same result fields for both formats, compactResultDocument() the floe-result/1
 * document.
 *
 * Each format's modules are loaded when a table of that format is compacted, so compacting an Iceberg
 * table never loads the Paimon adapter (and the reverse).
 */
import type { ProgressListener } from '../core/execution/events.js';
import type { CompactReport } from '../orchestration/compact-iceberg.js';
import type { PaimonCompactReport } from '../orchestration/compact-paimon.js';
import type { CompactSpec } from '../orchestration/job-types.js';
import { icebergCompactOptions, paimonCompactOptions } from '../orchestration/compact-spec.js';
import type { TieredStateJson } from '../core/planning/tiered/state-json.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import { fileIOFromEnv } from '../../connectors/storage/env.js';
import { accessOptionsOf } from './access-options.js';
import { withPlannerThreads } from './planner-threads.js';
import { tableFormatOf, type TableFormat } from './table-format.js';
import { isPaimonCatalogSpec, splitCatalogOptions, withPaimonCatalogTable } from './paimon-catalog.js';
import type { PaimonCommitLock, PaimonSnapshotCommitter } from '../../connectors/paimon/commit-lock.js';
import { compactExitCode, icebergCompactResult, paimonCompactResult, type CompactResult } from './compact-result.js';
import { resultDocument, type ResultDocument } from './result.js';
import { withJobLease, type JobLeaseOptions } from '../lease/job-lease.js';
import { withLeaseSignal } from '../lease/table-lease.js';
import type { MeasuredRun, RunEstimate } from '../../model/index.js';
import { metered, type CostOptions } from './cost/meter.js';
import { compactEstimate } from './cost/estimate.js';
import { conditionalProbeDue } from './cost/lease-state.js';
import { activeRequestCounter } from '../../connectors/storage/request-counter.js';

export interface CompactTableOptions extends CompactSpec, AccessOptions, CostOptions {
  /** The table's format when the caller knows it; else detected (a catalog names Iceberg tables). */
  format?: TableFormat;
  /** Planner / table properties (`-o key=value`); the spec's target size and filter are folded in. */
  options?: Record<string, string>;
  dryRun?: boolean;
  /**
   * Re-plans of groups a concurrent commit invalidated before the conflict is reported (Iceberg:
   * compact-iceberg-replan.ts, default 3; Paimon: DV races, DEFAULT_PAIMON_REPLANS).
   */
  maxReplans?: number;
  /** Iceberg tiered planner memory from the previous run (as a job spec carries it). */
  tieredState?: TieredStateJson;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Called once the table is found and opened, just before the compaction starts (may throw to stop). */
  beforeRun?: () => void;
  /** Paimon: the catalog lock to publish under (set from a `paimon-jdbc:` catalog). */
  commitLock?: PaimonCommitLock;
  /** Paimon: the catalog that publishes the snapshot (set from a `paimon-rest:` catalog). */
  paimonCommitter?: PaimonSnapshotCommitter;
}

/** `parquetCodec`: the Parquet codec this process decoded and encoded with (FLOE_PARQUET_CODEC, codec.ts). */
export type CompactRun = (
  | { format: 'iceberg'; report: CompactReport; formatVersion: number }
  | { format: 'paimon'; report: PaimonCompactReport }
) & { parquetCodec?: 'native' | 'wasm'; estimate?: RunEstimate; measured?: MeasuredRun };

/**
 * A compaction holding the table's lease (unless a dry run or `lease: false`): what `floe compact` and
 * runMaintenanceJob run. A lease lost mid-run aborts it through the signal compactTable gets.
 */
export async function runCompaction(ref: string, o: CompactTableOptions & JobLeaseOptions): Promise<CompactRun> {
  return withJobLease(ref, o, 'compact', (scope) =>
    compactMetered(ref, {
      ...o,
      ...(withLeaseSignal(o.signal, scope) ? { signal: withLeaseSignal(o.signal, scope)! } : {}),
    }),
  );
}

/**
 * The compaction alone, without the lease (library callers). One that gives no `partialProgress` gets an
 * all-or-nothing commit, as `floe compact` without `--partial-progress` (a job spec's default is `'hot'`).
 */
export async function compactTable(ref: string, o: CompactTableOptions = {}): Promise<CompactRun> {
  return compactMetered(ref, { ...o, partialProgress: o.partialProgress ?? false });
}

/**
 * Compacts, metered: the run carries its estimate (src/app/cost, docs/cost.md) and, unless a dry run, what it
 * measured. Planning ends at the plan's progress event; `meter: false` runs unmetered.
 */
async function compactMetered(ref: string, o: CompactTableOptions): Promise<CompactRun> {
  if (o.meter === false) return compactUnleased(ref, o);
  const conditionalProbe = conditionalProbeDue(ref, o);
  const m = await metered(o, (counter) =>
    compactUnleased(ref, {
      ...o,
      onProgress: (e) => {
        if (e.type === 'plan') counter.mark();
        o.onProgress?.(e);
      },
    }),
  );
  const run = m.value;
  const ctx = {
    prices: m.prices,
    calibration: m.calibration,
    lease: false,
    catalog: o.catalog !== undefined,
    conditionalProbe,
    remoteStore: /^s3[an]?:\/\//.test(ref),
    parallelism: o.parallelism ?? 'auto',
  };
  run.estimate = compactEstimate(run, m.phase, ctx, !!o.dryRun);
  if (m.measured) run.measured = m.measured;
  return run;
}

async function compactUnleased(ref: string, o: CompactTableOptions): Promise<CompactRun> {
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
    const popts = {
      ...paimonCompactOptions(o, { properties: o.options, dryRun: o.dryRun }),
      ...(o.commitLock ? { commitLock: o.commitLock } : {}),
      ...(o.paimonCommitter ? { committer: o.paimonCommitter } : {}),
      fileIO: files,
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      ...(o.signal ? { signal: o.signal } : {}),
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
  activeRequestCounter()?.markOpened(); // the estimate's model of a table re-read (src/app/cost/estimate.ts)
  try {
    o.beforeRun?.();
    // a dry run commits nothing, so it also runs on catalogs floe cannot commit to yet
    const ops = o.dryRun ? opened.ops : requireCommitOps(opened);
    const copts = icebergCompactOptions(o, {
      properties: o.options,
      dryRun: o.dryRun,
      ...(o.tieredState ? { tieredState: o.tieredState } : {}),
    });
    // the tiered input budget is per rewrite thread (planner-threads.ts); workers plan from these same options
    if (copts.strategy === 'tiered' && !copts.full && !o.deletesOnly)
      copts.options = withPlannerThreads(copts.options ?? {}, opened.table.metadata.properties, copts.parallelism!);
    let report: CompactReport;
    if (o.deletesOnly) {
      const { rewritePositionDeletes } = await import('../orchestration/rewrite-position-deletes.js');
      report = await rewritePositionDeletes(opened.table, opened.io, ops!, {
        options: copts.options ?? {},
        dryRun: !!o.dryRun,
        signal: o.signal,
      });
    } else {
      // groups a concurrent commit invalidated (and that could not be carried over) are planned again
      report = await compactIcebergReplanning(opened.table, opened.io, ops!, {
        ...copts,
        // worker threads open the table again the way it was opened here
        source: { table: ref, access: accessOptionsOf(o) },
        ...(o.onProgress ? { onProgress: o.onProgress } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
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
  return {
    ...result,
    ...(run.parquetCodec ? { parquetCodec: run.parquetCodec } : {}),
    ...(run.estimate ? { estimate: run.estimate } : {}),
    ...(run.measured ? { measured: run.measured } : {}),
  };
}

/** The floe-result/1 document of a compaction (exit code 0, 1 or 3 by its task outcomes). */
export function compactResultDocument(
  result: CompactResult,
  exitCode: number = compactExitCode(result),
): ResultDocument {
  return resultDocument('compact', exitCode, result);
}
