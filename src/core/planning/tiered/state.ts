/**
 * What the tiered planner remembers between runs: when each partition was last minor / major / full
 * optimized. The caller persists it; `advanceTieredState` records a committed plan.
 *
 * Amoro keeps these times per table and starts them at 0 (Java default of `TableRuntimeOptimizingState`,
 * NULL columns before that), so on a never-optimized table every time-based trigger counts as reached.
 * floe keeps them per partition (a busy partition no longer resets the clock of a quiet one) and uses
 * the same 0 default; table-level times, when given, serve partitions that have none of their own.
 */
import type { Plan, TaskKind } from '../plan.js';
import { partitionKey } from '../../../../model/index.js';

export interface OptimizeTimes {
  lastMinorMs?: number;
  lastMajorMs?: number;
  lastFullMs?: number;
}

export interface TieredState {
  /** Table-wide fallback (e.g. imported from Amoro's table runtime). */
  table?: OptimizeTimes;
  /** Keyed by `partitionKey(specId, partition)`. */
  partitions?: Record<string, OptimizeTimes>;
  /** Snapshot the last committed plan was made against (informational: triggers never wait for a new one). */
  lastOptimizedSnapshotId?: bigint;
}

export interface ResolvedTimes {
  lastMinorMs: number;
  lastMajorMs: number;
  lastFullMs: number;
}

export function timesFor(state: TieredState | undefined, key: string): ResolvedTimes {
  const p = state?.partitions?.[key];
  const t = state?.table;
  return {
    lastMinorMs: p?.lastMinorMs ?? t?.lastMinorMs ?? 0,
    lastMajorMs: p?.lastMajorMs ?? t?.lastMajorMs ?? 0,
    lastFullMs: p?.lastFullMs ?? t?.lastFullMs ?? 0,
  };
}

const RANK: Partial<Record<TaskKind, number>> = { 'eq-to-pos': 0, minor: 0, major: 1, full: 2 };

/**
 * The state after `plan` committed. Each partition with tasks gets its strongest task kind stamped with
 * the plan time (Amoro stamps the process's plan time too, and only the field of that type).
 */
export function advanceTieredState(prev: TieredState | undefined, plan: Plan): TieredState {
  const partitions: Record<string, OptimizeTimes> = { ...(prev?.partitions ?? {}) };
  const strongest = new Map<string, number>();
  for (const t of plan.tasks) {
    const r = RANK[t.kind];
    if (r === undefined) continue;
    const k = partitionKey(t.specId, t.partition);
    strongest.set(k, Math.max(strongest.get(k) ?? -1, r));
  }
  for (const [k, r] of strongest) {
    const cur = { ...(partitions[k] ?? {}) };
    if (r === 2) cur.lastFullMs = plan.plannedAtMs;
    else if (r === 1) cur.lastMajorMs = plan.plannedAtMs;
    else cur.lastMinorMs = plan.plannedAtMs;
    partitions[k] = cur;
  }
  const next: TieredState = { ...(prev ?? {}), partitions };
  if (plan.baseSnapshotId !== undefined) next.lastOptimizedSnapshotId = plan.baseSnapshotId;
  return next;
}
