/**
 * The simulation loop: per tick, land the writers' commits that are due, let the policy's scheduler
 * decide whether its planner runs, apply the plan, and sample the table once per simulated minute.
 * Compaction is instantaneous in simulated time (the plan commits in the tick it was made), so the
 * comparison is about what each policy decides, not about how fast an engine executes it.
 */
import { FloeError } from '../../../util/errors.js';
import type { Plan } from '../planning/plan.js';
import type { TableModel } from '../../../model/index.js';
import { plannerFor } from './planners.js';
import { Scheduler } from './schedule.js';
import { SimTable } from './sim-table.js';
import { summarize } from './stats.js';
import type { CommitStream, Policy, PolicyResult, SimulationReport, TimelinePoint } from './types.js';

/** Something that turns the table into a plan; stateful planners keep their state inside. */
export interface PlannerRunner {
  plan(table: TableModel, nowMs: number): Plan;
}

export interface SimulateOptions {
  /** Simulated wall clock at t = 0 (ms since epoch). */
  startMs?: number;
  /** Replaces the planner lookup (tests drive the accounting with hand-made planners). */
  planner?: (policy: Policy) => PlannerRunner;
}

/** 2025-01-01T00:00:00Z: a fixed, readable epoch so plans and reports are reproducible. */
export const DEFAULT_START_MS = Date.UTC(2025, 0, 1);
const MINUTE_MS = 60_000;

export function simulatePolicy(stream: CommitStream, policy: Policy, options: SimulateOptions = {}): PolicyResult {
  const startMs = options.startMs ?? DEFAULT_START_MS;
  const runner: PlannerRunner | undefined = options.planner ? options.planner(policy) : plannerFor(policy);
  const table = new SimTable(stream, policy.properties, startMs);
  const scheduler = new Scheduler(policy.schedule);

  const timeline: TimelinePoint[] = [];
  const violations: string[] = [];
  const tasksByKind: Record<string, number> = {};
  let bytesIngested = 0;
  let bytesRead = 0;
  let bytesWritten = 0;
  let writerCommits = 0;
  let plannerCalls = 0;
  let compactionRuns = 0;
  let tasks = 0;
  let deleteFilesRemoved = 0;
  let plannerMillis = 0;
  let filesOpened = 0;
  /** Per-run and per-file charges (bytes-equivalent) on top of the bytes read. */
  let readCharges = 0;
  let next = 0;

  for (let t = 0; t <= stream.durationMs; t += stream.tickMs) {
    const nowMs = startMs + t;
    while (next < stream.commits.length && stream.commits[next]!.atMs <= t) {
      bytesIngested += table.commit(stream.commits[next]!, startMs + stream.commits[next]!.atMs);
      writerCommits++;
      next++;
    }
    // Files are sampled after the writers' commits of the tick and before its compaction: what a reader
    // sees while that minute's compaction is still running (compaction takes time in reality). Bytes are
    // cumulative through the end of the tick, so a rewrite made at minute m counts at minute m.
    const sampling = t % MINUTE_MS === 0;
    const before = sampling
      ? {
          liveDataFiles: table.data.size,
          deleteFiles: table.deletes.size,
          deletesPerDataFile: table.deletesPerDataFile(),
          liveBytes: Math.round(table.liveBytes()),
        }
      : undefined;
    if (runner && scheduler.shouldRun(t, writerCommits)) {
      plannerCalls++;
      const t0 = performance.now();
      let plan: Plan;
      try {
        plan = runner.plan(table.toModel(), nowMs);
      } catch (e) {
        throw new FloeError(
          'Internal',
          `simulation ${stream.name}, policy ${policy.name}: planner failed at minute ${t / MINUTE_MS}: ${(e as Error).message}`,
          {
            context: { policy: policy.name, minute: t / MINUTE_MS },
            cause: e,
          },
        );
      }
      plannerMillis += performance.now() - t0;
      const liveFiles = table.data.size + table.deletes.size;
      const effect = table.applyPlan(plan, nowMs);
      if (effect.tasks > 0 || effect.deleteFilesRemoved > 0) {
        compactionRuns++;
        readCharges += stream.sizeModel.runCostBytes + stream.sizeModel.runCostBytesPerLiveFile * liveFiles;
      }
      filesOpened += effect.filesOpened;
      readCharges += effect.filesOpened * stream.sizeModel.fileOpenCostBytes;
      tasks += effect.tasks;
      for (const [k, n] of Object.entries(effect.tasksByKind)) tasksByKind[k] = (tasksByKind[k] ?? 0) + n;
      bytesRead += effect.bytesRead;
      bytesWritten += effect.bytesWritten;
      deleteFilesRemoved += effect.deleteFilesRemoved;
      for (const v of effect.violations) violations.push(`minute ${t / MINUTE_MS}: ${v}`);
    }
    if (before) {
      timeline.push({
        minute: t / MINUTE_MS,
        ...before,
        cumulativeBytesRead: Math.round(bytesRead),
        cumulativeReadCost: Math.round(bytesRead + readCharges),
        cumulativeBytesWritten: Math.round(bytesWritten),
      });
    }
  }

  return {
    policy: policy.name,
    description: policy.description,
    planner: policy.planner,
    schedule: policy.schedule,
    bytesIngested,
    compactionBytesRead: Math.round(bytesRead),
    filesOpened,
    compactionReadCost: Math.round(bytesRead + readCharges),
    compactionBytesWritten: Math.round(bytesWritten),
    writeAmplification: writeAmplification(bytesWritten, bytesIngested),
    // `final` is the end state, after the last tick's compaction.
    liveDataFiles: { ...summarize(timeline.map((p) => p.liveDataFiles)), final: table.data.size },
    deleteFiles: { ...summarize(timeline.map((p) => p.deleteFiles)), final: table.deletes.size },
    queryPenalty: { ...summarize(timeline.map((p) => p.deletesPerDataFile)), final: table.deletesPerDataFile() },
    finalLiveBytes: Math.round(table.liveBytes()),
    plannerCalls,
    compactionRuns,
    tasks,
    tasksByKind,
    deleteFilesRemoved,
    plannerMillis: Math.round(plannerMillis),
    violations: violations.slice(0, 50).concat(violations.length > 50 ? [`… and ${violations.length - 50} more`] : []),
    timeline,
  };
}

/** Compaction bytes written per byte the writers ingested (0 when nothing was ingested). */
export function writeAmplification(compactionBytesWritten: number, bytesIngested: number): number {
  return bytesIngested > 0 ? compactionBytesWritten / bytesIngested : 0;
}

/** Runs every policy against the same stream (each on its own fresh table). */
export function simulate(
  stream: CommitStream,
  policies: readonly Policy[],
  options: SimulateOptions = {},
): SimulationReport {
  const names = new Set<string>();
  for (const p of policies) {
    if (names.has(p.name))
      throw new FloeError('InvalidArgument', `simulation ${stream.name}: two policies are named "${p.name}"`);
    names.add(p.name);
  }
  return {
    stream: {
      name: stream.name,
      description: stream.description,
      durationMinutes: stream.durationMs / MINUTE_MS,
      tickMs: stream.tickMs,
      commits: stream.commits.length,
    },
    results: policies.map((p) => simulatePolicy(stream, p, options)),
  };
}
