/**
 * What an engine binding needs around the distributed seam, independent of the engine: the run's table
 * lease (taken when the run is planned, continued by the rewrite and commit steps on any machine, released
 * by the commit or when the run is given up). The run's result is src/app/job-result.ts compactionRunResult.
 *
 * The Temporal binding uses these; src/shells/bindings/bullmq.ts has the same logic inline (private helpers of the
 * same names) and can switch to this module without a change in behaviour.
 */
import type { MaintenanceJobResult, MaintenanceJobSpec } from '../orchestration/job-types.js';
import type { ObjectStore } from '../../connectors/storage/index.js';
import { isFloeError } from '../../util/errors.js';
import { storageConfigFromSpecs } from '../../connectors/storage/env.js';
import { acquireTableLease, adoptTableLease, type TableLease } from '../lease/lease.js';
import { leaseObject } from '../lease/table-lease.js';
import { tableLocationOf } from '../lease/job-lease.js';
import type { PlanRef } from './seam.js';

export type FloeRunResult = MaintenanceJobResult & { runId: string };

/** A distributed run's lease outlives the step that took it; rewrite steps renew it while they run. */
export const DEFAULT_RUN_LEASE_TTL_MS = 10 * 60_000;

export interface LeaseTarget {
  store: ObjectStore;
  key: string;
  location: string;
  close: () => void;
}

/** The lease object of the spec's table. Close it after use. */
export async function leaseTarget(spec: MaintenanceJobSpec): Promise<LeaseTarget> {
  const location = await tableLocationOf(spec.table, spec.access ?? {});
  return { location, ...leaseObject(location, storageConfigFromSpecs(spec.access?.locationMap)) };
}

/**
 * The lease for a new run (no automatic heartbeat: the run's steps renew it), or — when this run already
 * holds it (its plan step ran again) — the same lease. Another run's live lease throws `table busy …`.
 */
export async function takeRunLease(
  target: LeaseTarget,
  spec: MaintenanceJobSpec,
  runId: string,
  holder: string,
  ttlMs = DEFAULT_RUN_LEASE_TTL_MS,
): Promise<TableLease> {
  try {
    return await acquireTableLease(target.store, target.key, {
      table: target.location,
      job: spec.job,
      runId,
      holder,
      ttlMs,
      heartbeatMs: 0,
    });
  } catch (e) {
    if (isFloeError(e) && e.context.busy === true && e.context.runId === runId)
      return adoptTableLease(target.store, target.key, { runId, table: target.location, ttlMs, heartbeatMs: 0 });
    throw e;
  }
}

/**
 * Runs `fn` continuing the run's lease (heartbeat on while it runs; left held afterwards unless `fn`
 * releases it). A lease this run already released (an earlier attempt of its commit finished) gives `fn`
 * no lease: the commit is a no-op then. `enabled: false` runs without any lease.
 */
export async function withRunLease<T>(
  ref: PlanRef,
  enabled: boolean,
  ttlMs: number,
  fn: (lease: TableLease | undefined) => Promise<T>,
): Promise<T> {
  if (!enabled) return fn(undefined);
  const target = await leaseTarget(ref.spec);
  try {
    let lease: TableLease | undefined;
    try {
      lease = await adoptTableLease(target.store, target.key, { runId: ref.runId, table: target.location, ttlMs });
    } catch (e) {
      if (!(isFloeError(e) && e.context.released === true)) throw e;
    }
    try {
      return await fn(lease);
    } finally {
      await lease?.detach();
    }
  } finally {
    target.close();
  }
}
