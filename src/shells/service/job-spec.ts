/**
 * The job as `runMaintenanceJob` takes it, from a table's configuration: its properties (with the
 * per-run input quota as the tiered planner's budget), the job's options and the table's own concurrency,
 * and the tiered planner's memory.
 */
import type { JobConfig, TableConfig } from './config.js';
import type { MaintenanceJobSpec } from '../../orchestration/job-types.js';
import type { TieredStateJson } from '../../core/planning/tiered/state-json.js';

export function jobSpecFor(cfg: TableConfig, j: JobConfig, tiered: TieredStateJson | undefined): MaintenanceJobSpec {
  const properties = { ...cfg.properties };
  if (cfg.maxBytesPerRun !== undefined) {
    // the tiered planner's input budget is max-input-file-size-per-thread × available-cores
    properties['self-optimizing.max-input-file-size-per-thread'] ??= String(cfg.maxBytesPerRun);
    properties['self-optimizing.available-cores'] ??= '1';
  }
  const compact =
    j.kind === 'compact'
      ? {
          ...(j.compact ?? {}),
          ...(cfg.concurrency !== undefined && j.compact?.maxConcurrentGroups === undefined
            ? { maxConcurrentGroups: cfg.concurrency }
            : {}),
        }
      : undefined;
  return {
    table: cfg.table,
    job: j.kind,
    access: cfg.access,
    properties,
    dryRun: j.dryRun,
    ...(j.lease === false ? { lease: false } : {}),
    ...(compact ? { compact } : {}),
    ...(j.expire ? { expire: j.expire } : {}),
    ...(j.removeOrphans ? { removeOrphans: j.removeOrphans } : {}),
    ...(tiered ? { tieredState: tiered } : {}),
  };
}
