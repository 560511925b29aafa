/**
 * The estimate model: from a plan, what the run asks of storage, the CPU it takes, what it costs and what it
 * buys (docs/cost.md). The reads made to plan happen before any estimate can exist, so they are counted
 * (`PlanPhase`, the run's request counter up to the plan); everything the plan leads to is predicted:
 *
 * - compaction: every input data file read whole (1 GET) and every delete file once per task that applies
 *   it; each output file streamed up (request-counter.ts `uploadRequests`) and checked (1 HEAD); the write
 *   probe of the output and metadata directories (1 PUT + 1 DELETE each); the commit re-reads the table as
 *   planning did, rewrites every manifest holding a replaced file plus one new manifest, then a manifest list,
 *   the metadata file and (a filesystem table) the version hint; the result re-reads the committed table once.
 *   Output bytes: per task, the input files' bytes as overhead per file + bytes per row (a least-squares line
 *   through the inputs), applied to the rows left after deletes, in ⌈bytes / target⌉ files.
 * - expire and remove-orphans: the plan is the reads (a dry run makes every read the real run makes); a dry
 *   run's estimate adds what the real run does beyond them — the lease and the second opening of the table it
 *   takes, the expiry commit and its re-read, and one DELETE per batch of up to 1000 files. A real run's
 *   estimate counts everything up to its first delete and predicts the deletes and the lease release.
 * - CPU: the planning's CPU as measured; a rewrite's at the calibrated rates (calibration.ts) per file read or
 *   written and per byte; other predicted requests at the planning's own CPU per request.
 */
import type { DataFile, DeleteFile, MeasuredRun, RunBenefit, RunEstimate } from '../../../model/index.js';
import type { MaintenanceReport } from '../../../model/maintenance-report.js';
import type { RewriteTask } from '../../core/planning/plan.js';
import {
  REQUEST_KINDS,
  deleteRequests,
  emptyFigures,
  uploadRequests,
  zeroRequests,
  type RequestCounts,
  type StorageFigures,
} from '../../../connectors/storage/request-counter.js';
import os from 'node:os';
import type { CompactRun } from '../compact.js';
import { AUTO_PARALLEL_MIN_BYTES } from '../../orchestration/compact-iceberg.js';
import { CONDITIONAL_PROBE_REQUESTS } from '../../../connectors/storage/conditional-writes.js';
import type { CpuCalibration } from './calibration.js';
import { priceOf, type PriceSheet } from './prices.js';

/** What the run's counter saw up to the plan (and up to the table being open, when marked). */
export interface PlanPhase {
  figures: StorageFigures;
  cpuSeconds: number;
  /** Requests to find and open the table (format detection, metadata file), when marked. */
  opened?: StorageFigures;
}

export interface EstimateContext {
  prices: PriceSheet;
  calibration: CpuCalibration;
  /** Whether the real run takes the table lease (a dry run's estimate adds it and the table's re-opening). */
  lease: boolean;
  /** The table is committed through a catalog (no version-hint file to write). */
  catalog: boolean;
  /** Paimon `target-file-size`, when the run set it. */
  paimonTargetBytes?: number;
  /** Iceberg: rewrite threads the real run uses (`parallelism`; 'auto' as compact-iceberg.ts decides). */
  parallelism?: number | 'auto';
  /** The table is on an object store reached over HTTP (S3), not the local filesystem. */
  remoteStore?: boolean;
  /** The run's first commit or lease probes the store's conditional writes (an S3 store not yet probed). */
  conditionalProbe?: boolean;
  /** The lease file is already there (a released lease from an earlier run): taking it is a takeover. */
  leaseExists?: boolean;
  /** Files a real run looks up the size of before deleting them (the CLI's progress: one HEAD each). */
  sizingHeads?: number;
}

/**
 * Lease file: created and read back; or, when a released or expired lease is there, a failed create, its
 * record read, a claim listed, created and dropped, and the lease swapped by ETag. Released by one more write.
 */
const LEASE_CREATE: Partial<RequestCounts> = { put: 1, head: 1 };
const LEASE_TAKEOVER: Partial<RequestCounts> = { put: 3, head: 1, get: 1, list: 1, delete: 1 };
/** A lease record (JSON, holder, run id, times) is about this size. */
const LEASE_RECORD_BYTES = 460;
const LEASE_RELEASE: Partial<RequestCounts> = { put: 1 };
/** The write probe before a rewrite: output and metadata directories, one create + one delete each. */
const WRITE_PROBE: Partial<RequestCounts> = { put: 2, delete: 2 };

class Tally {
  readonly requests = zeroRequests();
  bytesRead = 0;
  bytesWritten = 0;
  add(r: Partial<RequestCounts>, times = 1): this {
    for (const k of REQUEST_KINDS) this.requests[k] += (r[k] ?? 0) * times;
    return this;
  }
  lease(take: Partial<RequestCounts>): this {
    this.add(take).add(LEASE_RELEASE);
    const writes = (take.put ?? 0) + (LEASE_RELEASE.put ?? 0);
    this.bytesWritten += writes * LEASE_RECORD_BYTES;
    this.bytesRead += (take.get ?? 0) * LEASE_RECORD_BYTES;
    return this;
  }
  addFigures(f: StorageFigures, times = 1): this {
    this.add(f.requests, times);
    this.bytesRead += f.bytesRead * times;
    this.bytesWritten += f.bytesWritten * times;
    return this;
  }
  total(): number {
    return REQUEST_KINDS.reduce((n, k) => n + this.requests[k], 0);
  }
}

function noBenefit(): RunBenefit {
  return { scanFileOpensSaved: 0, scanBytesSaved: 0, deleteMergesSaved: 0, manifestsSaved: 0, storageBytesFreed: 0 };
}

function finish(
  phase: PlanPhase,
  exec: Tally,
  cpuSeconds: number,
  benefit: RunBenefit,
  ctx: EstimateContext,
  basis: string,
): RunEstimate {
  const requests = zeroRequests();
  for (const k of REQUEST_KINDS) requests[k] = Math.round(phase.figures.requests[k] + exec.requests[k]);
  const figures = {
    requests,
    bytesRead: Math.round(phase.figures.bytesRead + exec.bytesRead),
    bytesWritten: Math.round(phase.figures.bytesWritten + exec.bytesWritten),
    cpuSeconds: round3(cpuSeconds),
  };
  const cost = priceOf(figures, ctx.prices);
  return {
    ...figures,
    cost: { total: round6(cost.total), currency: cost.currency, sheet: cost.sheet },
    benefit,
    basis: `${basis}; CPU rates ${ctx.calibration.source} (${ctx.calibration.key})`,
  };
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** CPU per request the planning itself took: the rate for the bookkeeping requests a plan leads to. */
function cpuPerRequest(phase: PlanPhase): number {
  const n = REQUEST_KINDS.reduce((s, k) => s + phase.figures.requests[k], 0);
  return n > 0 ? phase.cpuSeconds / n : 0;
}

/** The requests of the table's second opening under the lease (what opening took the first time). */
function reopening(phase: PlanPhase): StorageFigures {
  return phase.opened ?? emptyFigures();
}

// ---- compaction --------------------------------------------------------------------------------------------

interface OutputGuess {
  bytes: number;
  files: number;
}

/** Rows left after the task's deletes: position deletes and equality deletes each remove at most one row a record. */
function liveRows(task: Pick<RewriteTask, 'inputs' | 'deletes'>): number {
  const rows = task.inputs.reduce((n, f) => n + f.recordCount, 0);
  const deleted = task.deletes.reduce((n, d) => n + d.recordCount, 0);
  return Math.max(0, rows - Math.min(rows, deleted));
}

/** Output of a task: a size-per-file + size-per-row line through its inputs, applied to the live rows. */
export function guessOutput(task: Pick<RewriteTask, 'inputs' | 'deletes' | 'targetFileSizeBytes'>): OutputGuess {
  const files: readonly DataFile[] = task.inputs;
  const rows = files.reduce((n, f) => n + f.recordCount, 0);
  const bytes = files.reduce((n, f) => n + f.sizeBytes, 0);
  if (files.length === 0 || rows === 0) return { bytes: 0, files: 0 };
  let perFile = 0;
  let perRow = bytes / rows;
  if (files.length >= 2) {
    const mx = rows / files.length;
    const my = bytes / files.length;
    let sxx = 0;
    let sxy = 0;
    for (const f of files) {
      sxx += (f.recordCount - mx) ** 2;
      sxy += (f.recordCount - mx) * (f.sizeBytes - my);
    }
    const slope = sxx > 0 ? sxy / sxx : -1;
    const intercept = my - slope * mx;
    if (slope > 0 && intercept >= 0) {
      perRow = slope;
      perFile = intercept;
    }
  }
  const live = liveRows(task);
  const target = Math.max(1, task.targetFileSizeBytes);
  const n = Math.max(1, Math.ceil((live * perRow) / target));
  return { bytes: Math.round(n * perFile + live * perRow), files: live === 0 ? 0 : n };
}

/** Manifests holding a replaced file: one per (adding snapshot, content) at most, capped by the table's manifests. */
function touchedManifests(tasks: readonly RewriteTask[], removable: readonly DeleteFile[], cap: number): number {
  const keys = new Set<string>();
  const add = (f: DataFile | DeleteFile) =>
    keys.add(`${f.snapshotId ?? 'unknown'}|${f.content === 'data' ? 'data' : 'deletes'}|${f.specId}`);
  for (const t of tasks) {
    if (t.kind === 'eq-to-pos') continue;
    t.inputs.forEach(add);
    t.removableDeletes.forEach(add);
  }
  removable.forEach(add);
  return Math.max(0, Math.min(keys.size, cap));
}

export function compactEstimate(run: CompactRun, phase: PlanPhase, ctx: EstimateContext, dryRun: boolean): RunEstimate {
  return run.format === 'iceberg'
    ? icebergCompactEstimate(run.report, phase, ctx, dryRun)
    : paimonCompactEstimate(run.report, phase, ctx, dryRun);
}

type IcebergReport = Extract<CompactRun, { format: 'iceberg' }>['report'];
type PaimonReport = Extract<CompactRun, { format: 'paimon' }>['report'];

/**
 * One re-read of the table: finding the current metadata file (a filesystem table: the version hint, the
 * HEADs that look for a newer version, the metadata file; a catalog: the metadata file) plus the manifest
 * list and manifests planning read after the table was open. Opening may have read the metadata more than
 * once (a copied table is opened again under its new location): its size is taken per opening.
 */
function tableLoad(phase: PlanPhase, ctx: EstimateContext): StorageFigures {
  const p = phase.figures;
  const o = phase.opened;
  if (!o) return { ...p, requests: { ...p.requests, list: 0, put: 0, delete: 0 } };
  const locateGets = ctx.catalog ? 1 : 2;
  const opens = Math.max(1, Math.round(o.requests.get / locateGets));
  const requests = zeroRequests();
  requests.get = locateGets + (p.requests.get - o.requests.get);
  requests.head = (ctx.catalog ? 0 : FIND_NEWER_VERSION_HEADS) + (p.requests.head - o.requests.head);
  return { requests, bytesRead: o.bytesRead / opens + (p.bytesRead - o.bytesRead), bytesWritten: 0 };
}

function rewriteThreads(p: number | 'auto' | undefined, inputBytes: number): number {
  if (p === undefined) return 1;
  if (p !== 'auto') return Math.max(1, Math.floor(p));
  return inputBytes >= AUTO_PARALLEL_MIN_BYTES ? os.availableParallelism() : 1;
}

/** HEADs a filesystem table's refresh sends after the version hint (v(N), v(N+1) and its compressed names). */
const FIND_NEWER_VERSION_HEADS = 4;

function icebergCompactEstimate(
  r: IcebergReport,
  phase: PlanPhase,
  ctx: EstimateContext,
  dryRun: boolean,
): RunEstimate {
  const tasks = r.plan.tasks;
  const exec = new Tally();
  const benefit = noBenefit();
  if (tasks.length === 0 && r.plan.removableDeletes.length === 0)
    return finish(phase, exec, phase.cpuSeconds, benefit, ctx, 'nothing planned: every request counted');
  let dataBytes = 0;
  let rewriteFiles = 0;
  let outFiles = 0;
  let outBytes = 0;
  const removedDeletes = new Map<string, number>();
  for (const t of tasks) {
    for (const d of t.removableDeletes) removedDeletes.set(d.path, d.sizeBytes);
    if (t.kind === 'eq-to-pos') {
      // reads the equality deletes and the data files they apply to; writes position deletes (small)
      exec.add({ get: t.inputs.length + t.deletes.length });
      exec.bytesRead += t.inputBytes + t.deletes.reduce((n, d) => n + d.sizeBytes, 0);
      continue;
    }
    exec.add({ get: t.inputs.length + t.deletes.length });
    const read = t.inputBytes + t.deletes.reduce((n, d) => n + d.sizeBytes, 0);
    exec.bytesRead += read;
    const out = guessOutput(t);
    const perFile = out.files > 0 ? out.bytes / out.files : 0;
    for (let i = 0; i < out.files; i++) exec.add(uploadRequests(perFile, { ifNoneMatch: '*' })).add({ head: 1 });
    exec.bytesWritten += out.bytes;
    outFiles += out.files;
    outBytes += out.bytes;
    dataBytes += read + out.bytes;
    rewriteFiles += t.inputs.length + t.deletes.length + out.files;
    benefit.deleteMergesSaved += t.inputs.length * t.deletes.length;
  }
  for (const d of r.plan.removableDeletes) removedDeletes.set(d.path, d.sizeBytes);
  const inputs = tasks.filter((t) => t.kind !== 'eq-to-pos');
  const inFiles = inputs.reduce((n, t) => n + t.inputs.length, 0);
  const inBytes = inputs.reduce((n, t) => n + t.inputBytes, 0);
  const removedBytes = [...removedDeletes.values()].reduce((a, b) => a + b, 0);
  benefit.scanFileOpensSaved = inFiles + removedDeletes.size - outFiles;
  benefit.scanBytesSaved = inBytes + removedBytes - outBytes;
  benefit.manifestsSaved = -1; // replaced files' manifests are rewritten one for one, plus one for the new files

  // the commit: the table re-read as planning read it (without the format detection's listing), then written
  const load = tableLoad(phase, ctx);
  const metadataGets = Math.max(1, load.requests.get - (ctx.catalog ? 2 : 3)); // less metadata file, list, hint
  const touched = touchedManifests(tasks, r.plan.removableDeletes, metadataGets);
  exec.add(WRITE_PROBE);
  if (ctx.conditionalProbe && !ctx.catalog) exec.add(CONDITIONAL_PROBE_REQUESTS);
  exec.addFigures(load); // refresh before the commit
  exec.add({ put: touched + 1 + 1 + 1 + (ctx.catalog ? 0 : 1) }); // manifests, manifest list, metadata, hint
  const manifestShare = (touched + 1) / metadataGets;
  exec.bytesWritten += load.bytesRead * Math.min(1.2, manifestShare); // manifests and metadata in proportion
  exec.addFigures(load).add({ get: 1 }); // the committed table re-read for the result (one manifest more)
  // worker threads open and plan the table again, each once (src/distributed/group-worker.ts)
  const dataTasks = inputs.length;
  const threads = Math.min(dataTasks, rewriteThreads(ctx.parallelism, inBytes));
  if (threads > 1) exec.addFigures(tableLoad(phase, ctx), threads);
  if (dryRun && ctx.lease) exec.lease(ctx.leaseExists ? LEASE_TAKEOVER : LEASE_CREATE);

  const bookkeeping = exec.requests.get + exec.requests.put - rewriteFiles;
  // the calibration rewrites local tables; a remote store's requests (signing, HTTP) cost what planning's did
  const remote = ctx.remoteStore ? cpuPerRequest(phase) * exec.total() : 0;
  const cpu =
    phase.cpuSeconds * (threads > 1 ? 1 + threads : 1) + // each worker thread loads the code and plans again
    ctx.calibration.secondsPerFile * (rewriteFiles + Math.max(0, bookkeeping)) +
    ctx.calibration.secondsPerByte * dataBytes +
    remote;
  return finish(
    phase,
    exec,
    cpu,
    benefit,
    ctx,
    'planning counted; data reads, writes and the commit predicted from the plan',
  );
}

function paimonCompactEstimate(r: PaimonReport, phase: PlanPhase, ctx: EstimateContext, dryRun: boolean): RunEstimate {
  const exec = new Tally();
  const benefit = noBenefit();
  const buckets = r.buckets.filter((b) => b.compact);
  if (buckets.length === 0)
    return finish(phase, exec, phase.cpuSeconds, benefit, ctx, 'nothing planned: every request counted');
  const target = ctx.paimonTargetBytes ?? 128 * 1024 * 1024; // Paimon's target-file-size default
  let dataBytes = 0;
  let files = 0;
  for (const b of buckets) {
    const inBytes = b.runs.reduce((n, x) => n + x.bytes, 0);
    const inFiles = b.filesBefore.length;
    const outFiles = Math.max(1, Math.ceil(inBytes / target));
    exec.add({ get: inFiles });
    exec.bytesRead += inBytes;
    for (let i = 0; i < outFiles; i++) exec.add(uploadRequests(inBytes / outFiles, { ifNoneMatch: '*' }));
    exec.bytesWritten += inBytes; // the same rows, re-encoded: about the same bytes
    dataBytes += 2 * inBytes;
    files += inFiles + outFiles;
    benefit.scanFileOpensSaved += inFiles - outFiles;
  }
  // the commit: the latest snapshot re-read, then a manifest, base + delta manifest lists, the snapshot, LATEST
  exec.addFigures({ ...phase.figures, requests: { ...phase.figures.requests, list: 0, put: 0, delete: 0 } });
  exec.add({ put: 5 });
  if (ctx.conditionalProbe) exec.add(CONDITIONAL_PROBE_REQUESTS);
  if (dryRun && ctx.lease) exec.lease(ctx.leaseExists ? LEASE_TAKEOVER : LEASE_CREATE);
  const cpu =
    phase.cpuSeconds + ctx.calibration.secondsPerFile * (files + 5) + ctx.calibration.secondsPerByte * dataBytes;
  return finish(
    phase,
    exec,
    cpu,
    benefit,
    ctx,
    'planning counted; data reads, writes and the commit predicted (Paimon: bytes out taken as bytes in)',
  );
}

// ---- expire and remove-orphans -------------------------------------------------------------------------------

/** The files the run deletes: everything chosen but what it refused (outside the table). */
function toDelete(r: MaintenanceReport): number {
  return r.candidates.length;
}

export function maintenanceEstimate(r: MaintenanceReport, phase: PlanPhase, ctx: EstimateContext): RunEstimate {
  const exec = new Tally();
  const n = toDelete(r);
  const freed = r.candidates.reduce((s, c) => s + (c.bytes ?? 0), 0);
  const benefit = {
    ...noBenefit(),
    storageBytesFreed: freed,
    manifestsSaved: r.candidates.filter((c) => c.kind === 'manifest').length,
  };
  if (r.dryRun) {
    const commits = r.command === 'expire' && (r.details.expiredSnapshots as unknown[] | undefined)?.length;
    if (commits) {
      // the new metadata file (and version hint), then the table re-read to find what only expired snapshots reached
      const opened = reopening(phase);
      exec.add({ put: 1 + (ctx.catalog ? 0 : 1) });
      // the metadata file again, without the expired snapshots' entries; its schemas, specs and properties
      // stay (taken as worth 12 snapshot entries)
      const expired = (r.details.expiredSnapshots as unknown[]).length;
      const retained = Number(r.details.retainedSnapshots ?? 0);
      exec.bytesWritten += opened.bytesRead * ((retained + 12) / (retained + expired + 12));
      exec.addFigures({ ...opened, requests: { ...opened.requests, list: 0 } });
    }
    // the real run takes the lease first, whatever it finds, and opens the table again under it
    if (ctx.lease) exec.lease(ctx.leaseExists ? LEASE_TAKEOVER : LEASE_CREATE).addFigures(reopening(phase));
    // the lease (or, without one, a filesystem expiry commit) probes an S3 store not yet probed
    if (ctx.conditionalProbe && (ctx.lease || (commits && !ctx.catalog))) exec.add(CONDITIONAL_PROBE_REQUESTS);
    exec.add({ delete: deleteRequests(n), head: ctx.sizingHeads ?? 0 });
  } else {
    exec.add({ delete: deleteRequests(n) });
    if (ctx.lease) {
      exec.add(LEASE_RELEASE);
      exec.bytesWritten += LEASE_RECORD_BYTES;
    }
  }
  const cpu = phase.cpuSeconds + cpuPerRequest(phase) * exec.total();
  return finish(
    phase,
    exec,
    cpu,
    benefit,
    ctx,
    r.dryRun
      ? 'reads counted (the plan is its reads); the commit, lease and deletes predicted'
      : 'everything up to the first delete counted; deletes and the lease release predicted',
  );
}

/** A measured run with its money at the same sheet. */
export function measuredRun(figures: StorageFigures, cpuSeconds: number, prices: PriceSheet): MeasuredRun {
  const cost = priceOf({ requests: figures.requests, cpuSeconds }, prices);
  return {
    requests: { ...figures.requests },
    bytesRead: figures.bytesRead,
    bytesWritten: figures.bytesWritten,
    cpuSeconds: round3(cpuSeconds),
    cost: { total: round6(cost.total), currency: cost.currency, sheet: cost.sheet },
  };
}
