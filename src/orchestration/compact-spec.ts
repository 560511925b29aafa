/**
 * A CompactSpec (job-types.ts) turned into the options of the format's compaction, in one place for every
 * entry point — `floe compact`, compactTable, runMaintenanceJob (`floe serve`, BullMQ, Temporal) and the
 * distributed seam's plan and rewrite steps:
 *
 * - the defaults: strategy tiered, partial progress `'hot'` when unset, 2 groups at once, parallelism auto;
 * - the target size and `--where`: Iceberg planner properties (`self-optimizing.target-size` and
 *   `target-file-size-bytes` unless the properties set them, `self-optimizing.filter`), Paimon's
 *   `target-file-size` and partition filter;
 * - the options only one format has (Iceberg sort strategies, leave-newest, dangling deletes; Paimon sort
 *   compaction and `explain`).
 *
 * Only types of the format modules are imported, so resolving a spec loads neither format's engine.
 */
import { FloeError } from '../../util/errors.js';
import type { TableFormat } from '../../connectors/table-format.js';
import type { PaimonSortStrategy } from './paimon-compact/sort-compact.js';
import { parseDurationMs, parseSize } from '../../util/units.js';
import { decodeTieredState, type TieredStateJson } from '../core/planning/tiered/state-json.js';
import type { CompactOptions } from './compact-iceberg.js';
import type { PaimonCompactOptions } from './compact-paimon.js';
import type { CompactSpec } from './job-types.js';

/** What a spec asks of the table's format: Iceberg's compactIceberg (or, deletesOnly, the delete rewrite) or Paimon's. */
export type ResolvedCompact =
  | { format: 'iceberg'; deletesOnly: boolean; options: CompactOptions }
  | { format: 'paimon'; options: PaimonCompactOptions };

export interface ResolveCompactContext {
  /** Planner / table properties (`-o key=value`, a job's `properties`); copied, never changed. */
  properties?: Record<string, string>;
  /** Iceberg tiered planner memory from the previous run. */
  tieredState?: TieredStateJson;
  dryRun?: boolean;
  /** The planner's clock (the seam replans with the plan's). */
  nowMs?: number;
}

const PAIMON_SORTS: readonly string[] = ['sort', 'zorder', 'hilbert'];

export function resolveCompactSpec(
  format: TableFormat,
  spec: CompactSpec = {},
  ctx: ResolveCompactContext = {},
): ResolvedCompact {
  return format === 'paimon'
    ? { format, options: paimonCompactOptions(spec, ctx) }
    : { format, deletesOnly: !!spec.deletesOnly, options: icebergCompactOptions(spec, ctx) };
}

/** The spec's target size in bytes (`128MB`, or bytes as a bare number). */
function targetBytesOf(spec: CompactSpec): number | undefined {
  return spec.targetSize !== undefined && spec.targetSize !== '' ? parseSize(spec.targetSize) : undefined;
}

/** compactIceberg's options for a spec (with `deletesOnly`, rewritePositionDeletes takes `options` and `dryRun`). */
export function icebergCompactOptions(spec: CompactSpec, ctx: ResolveCompactContext = {}): CompactOptions {
  const properties = { ...(ctx.properties ?? {}) };
  const targetBytes = targetBytesOf(spec);
  if (spec.strategy === 'hilbert')
    throw new FloeError(
      'InvalidArgument',
      `--strategy hilbert is Paimon's sort compaction (order_strategy=hilbert); Iceberg tables take --strategy sort or zorder`,
    );
  if (targetBytes !== undefined) {
    properties['self-optimizing.target-size'] ??= String(targetBytes);
    properties['target-file-size-bytes'] ??= String(targetBytes);
  }
  if (spec.where) properties['self-optimizing.filter'] = spec.where;
  const newest = {
    ...(spec.leaveNewestCommits !== undefined ? { commits: spec.leaveNewestCommits } : {}),
    ...(spec.leaveNewestWithin !== undefined ? { withinMs: parseDurationMs(spec.leaveNewestWithin) } : {}),
  };
  return {
    strategy: spec.strategy ?? 'tiered',
    ...(spec.sort ? { sort: spec.sort } : {}),
    ...(spec.full ? { full: true } : {}),
    options: properties,
    dryRun: !!ctx.dryRun,
    // unset: small commits for a table a writer is committing to (its conflict windows stay short)
    partialProgress: spec.partialProgress ?? 'hot',
    ...(Object.keys(newest).length > 0 ? { leaveNewest: newest } : {}),
    maxConcurrentGroups: spec.maxConcurrentGroups ?? 2,
    parallelism: spec.parallelism ?? 'auto',
    ...(spec.onlyDanglingDeletes !== undefined ? { onlyDanglingDeletes: spec.onlyDanglingDeletes } : {}),
    ...(spec.removeDanglingDeletes !== undefined ? { removeDanglingDeletes: spec.removeDanglingDeletes } : {}),
    ...(ctx.tieredState ? { tieredState: decodeTieredState(ctx.tieredState) } : {}),
    ...(ctx.nowMs !== undefined ? { nowMs: ctx.nowMs } : {}),
  };
}

/** compactPaimon's options for a spec (the caller adds the FileIO, progress and signal). */
export function paimonCompactOptions(spec: CompactSpec, ctx: ResolveCompactContext = {}): PaimonCompactOptions {
  const properties = { ...(ctx.properties ?? {}) };
  const targetBytes = targetBytesOf(spec);
  if (targetBytes !== undefined) properties['target-file-size'] = String(targetBytes);
  const sorted = spec.strategy !== undefined && PAIMON_SORTS.includes(spec.strategy);
  return {
    full: !!spec.full,
    dryRun: !!ctx.dryRun,
    ...(spec.explain !== undefined ? { explain: spec.explain } : {}),
    options: properties,
    ...(spec.where !== undefined ? { where: spec.where } : {}),
    ...(sorted ? { sort: { strategy: spec.strategy as PaimonSortStrategy, ...(spec.sort ?? {}) } } : {}),
    ...(ctx.nowMs !== undefined ? { nowMs: ctx.nowMs } : {}),
  };
}
