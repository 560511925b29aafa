/**
 * The JSON job a worker thread gets to run one rewrite step of a single-process run (group-worker.ts), and
 * how the caller turns the run's options into it. The plan itself does not travel: the worker plans again
 * from the same base metadata file, options and clock, and checks the task's inputs against the caller's.
 */
import type { CompactOptions } from './compact-iceberg.js';
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import { decodeTieredState, encodeTieredState, type TieredStateJson } from '../core/planning/tiered/state-json.js';

/** How a worker opens the table again: the reference and access options the caller opened it with. */
export interface TableSource {
  table: string;
  access: AccessOptions;
}

/** The planner inputs of CompactOptions, as JSON. */
export interface PlanInputsJson {
  strategy?: CompactOptions['strategy'];
  sort?: CompactOptions['sort'];
  full?: boolean;
  options?: Record<string, string>;
  nowMs: number;
  tieredState?: TieredStateJson;
  /** The caller split oversized tasks (CompactOptions.splitTasks): plan the same. */
  splitTasks?: boolean;
}

export interface GroupJob {
  source: TableSource;
  /** The run's base: the metadata file the plan was made from. */
  metadataLocation: string;
  plan: PlanInputsJson;
  taskId: string;
  /** The task's input files as the caller planned them. */
  inputs: string[];
  outputPrefix: string;
}

export function planInputsOf(opts: CompactOptions, nowMs: number): PlanInputsJson {
  return {
    ...(opts.strategy ? { strategy: opts.strategy } : {}),
    ...(opts.sort ? { sort: opts.sort } : {}),
    ...(opts.full ? { full: true } : {}),
    ...(opts.options ? { options: opts.options } : {}),
    nowMs,
    ...(opts.tieredState ? { tieredState: encodeTieredState(opts.tieredState) } : {}),
    ...(opts.splitTasks ? { splitTasks: true } : {}),
  };
}

export function compactOptionsOf(p: PlanInputsJson): CompactOptions {
  return {
    ...(p.strategy ? { strategy: p.strategy } : {}),
    ...(p.sort ? { sort: p.sort } : {}),
    ...(p.full ? { full: true } : {}),
    ...(p.options ? { options: p.options } : {}),
    nowMs: p.nowMs,
    ...(p.tieredState ? { tieredState: decodeTieredState(p.tieredState) } : {}),
    ...(p.splitTasks ? { splitTasks: true } : {}),
  };
}
