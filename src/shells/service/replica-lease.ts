/**
 * Replicas sharing a PostgreSQL state database lease a table before working on it, so two never run one
 * table at once. The holder re-reads the shared state (another replica may have paused the table or run the
 * job meanwhile) and keeps the lease alive every third of its TTL while the job runs.
 */
import { dueAt } from './job-timing.js';
import type { ServiceCore, StartedJob } from './service-core.js';
import type { JobState } from './state.js';
import type { DbStateStore } from './state-db.js';
import type { JobKind, MaintenanceJobSpec } from '../../orchestration/job-types.js';

/** A replica's hold on a table: renewed every third of it while a job runs. */
const LEASE_TTL_MS = 120_000;
/** A job that could not start here (leased elsewhere, or a table busy) is tried again after at most this long. */
export const LEASE_RETRY_MS = 30_000;

export type ReplicaLease =
  { ok: true; spec: MaintenanceJobSpec; heartbeat: NodeJS.Timeout } | { ok: false; why: string; keepForced: boolean };

/** Takes the table's lease for run `r`, or says why the run does not happen here after all. */
export async function leaseForRun(
  core: ServiceCore,
  db: DbStateStore,
  { t, j, r, forced }: StartedJob,
  spec: MaintenanceJobSpec,
): Promise<ReplicaLease> {
  const name = t.cfg.name;
  let holder: string | undefined;
  try {
    holder = await db.acquireLease(name, db.replica, core.clock.now(), LEASE_TTL_MS);
  } catch (e) {
    holder = `(the lease could not be checked: ${e instanceof Error ? e.message : String(e)})`;
  }
  if (holder !== undefined) return { ok: false, why: `table is leased by ${holder}`, keepForced: true };
  // another replica may have paused it since this one last looked
  const paused = await db.isPaused(name).catch(() => false);
  if (paused && !t.paused) {
    t.paused = true;
    core.metrics.setPaused(name, true);
  }
  if (paused && !(forced && spec.dryRun)) {
    await releaseLease(db, name);
    return { ok: false, why: 'the table was paused (by another replica)', keepForced: false };
  }
  const fresh = await db.load(name).catch(() => undefined);
  if (fresh) {
    for (const [k, v] of Object.entries(fresh.jobs) as [JobKind, JobState][])
      t.state.jobs[k] = { ...v, firstSeenMs: v.firstSeenMs ?? t.state.jobs[k]?.firstSeenMs ?? r.startedAtMs };
    if (fresh.tiered) t.state.tiered = fresh.tiered;
    else delete t.state.tiered;
    spec = { ...spec, ...(t.state.tiered ? { tieredState: t.state.tiered } : {}) };
  }
  if (!forced && dueAt(t, j, core.clock.now()) > core.clock.now()) {
    await releaseLease(db, name);
    return { ok: false, why: 'another replica already ran it', keepForced: false };
  }
  if (!r.dryRunOverride) t.state.jobs[j.kind]!.lastStartMs = r.startedAtMs;
  const heartbeat = setInterval(
    () => void db.acquireLease(name, db.replica, core.clock.now(), LEASE_TTL_MS).catch(() => undefined),
    LEASE_TTL_MS / 3,
  );
  heartbeat.unref();
  return { ok: true, spec, heartbeat };
}

/** Best effort: an unreleased lease expires on its own. */
export async function releaseLease(db: DbStateStore, table: string): Promise<void> {
  await db.releaseLease(table, db.replica).catch(() => undefined);
}
