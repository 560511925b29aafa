/**
 * Issue 12.5: floe on Temporal against a real Temporal dev server (the Temporal CLI built from the Go module
 * proxy by scripts/setup-temporal.sh) with workers in this process: `maintainTable` compacts a small-files
 * Iceberg table in one commit with the same rows (read by floe and by PyIceberg); the `progress` query
 * answers while it runs; a cancelled workflow stops its rewrite activities and commits nothing; a commit
 * activity retried after its commit succeeded (the worker died before reporting) is a no-op; expire runs
 * as one floeMaintain activity; the per-table Schedule skips overlapping runs.
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure, CancelledFailure, Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  createFloeActivities,
  maintainTableProgress,
  startMaintainTable,
  upsertTableSchedule,
  workflowBundle,
  type FloeActivities,
  type MaintainTableProgress,
} from '../../src/shells/bindings/temporal.js';
import { RUN_ID_PROPERTY } from '../../src/distributed/seam.js';
import { readTableLease } from '../../src/lease/lease.js';
import { LocalObjectStore } from '../../connectors/storage/index.js';
import type { MaintenanceJobSpec } from '../../src/orchestration/job-types.js';
import { expectOneCommit } from '../support/one-commit.js';
import { canonicalRows, pyiceberg } from '../oracles/index.js';
import { smallTable, type SmallTable } from '../../test/distributed/small-table.js';
import { skipTemporal, startTemporal } from './temporal-server.js';

let env: TestWorkflowEnvironment;
let queueNo = 0;

beforeAll(async () => {
  if (skipTemporal) return;
  const py = await pyiceberg.available();
  if (!py.ok) throw new Error(`PyIceberg is needed as the reference reader: ${py.reason} (scripts/setup-oracles.sh)`);
  env = await startTemporal();
});
afterAll(async () => {
  await env?.teardown();
});

const spec = (t: SmallTable): MaintenanceJobSpec => ({
  table: t.dir,
  job: 'compact',
  compact: { strategy: 'binpack' },
  properties: { 'min-input-files': '2' },
});
const lease = (t: SmallTable) => readTableLease(new LocalObjectStore('/'), `${t.dir.slice(1)}/.floe/lease.json`);
const runFiles = (t: SmallTable, runId: string) =>
  readdirSync(path.join(t.dir, 'data'), { recursive: true })
    .map(String)
    .filter((p) => path.basename(p).startsWith(`floe-run-${runId}`));

/** Workers on a fresh task queue, with some floe activities replaced by test wrappers. */
/** Objects left under the run's plan prefix (an emptied local directory may stay: object stores have none). */
const planFiles = (t: SmallTable, runId: string) => {
  const dir = path.join(t.dir, '.floe/runs', runId);
  return existsSync(dir)
    ? readdirSync(dir, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => e.name)
    : [];
};

async function workers(
  n: number,
  wrap: (real: FloeActivities) => Partial<FloeActivities> = () => ({}),
): Promise<{ taskQueue: string; run<T>(body: () => Promise<T>): Promise<T> }> {
  const taskQueue = `floe-test-${process.pid}-${++queueNo}`;
  const real = createFloeActivities();
  const activities = { ...real, ...wrap(real) };
  const bundle = await workflowBundle();
  // one connection per worker: the SDK refuses two workers of one task queue on one connection
  const connections = await Promise.all(
    Array.from({ length: n }, () => NativeConnection.connect({ address: env.address })),
  );
  const ws = await Promise.all(
    connections.map((connection) =>
      Worker.create({
        connection,
        taskQueue,
        workflowBundle: bundle,
        activities,
        maxConcurrentActivityTaskExecutions: 2,
      }),
    ),
  );
  return {
    taskQueue,
    // the workers run while `body` does (queries of a closed workflow need a worker too), then shut down
    run: async <T>(body: () => Promise<T>) => {
      const p = body();
      const all = ws.map((w) => w.runUntil(p.catch(() => undefined)));
      try {
        return await p;
      } finally {
        await Promise.all(all);
        await Promise.all(connections.map((c) => c.close()));
      }
    },
  };
}

describe.skipIf(skipTemporal)('Temporal binding (real Temporal dev server)', () => {
  it('maintainTable compacts a small-files table: one commit, the same rows; the progress query answers', async () => {
    const t = await smallTable();
    try {
      const rows = await t.rows();
      const ref = canonicalRows(await pyiceberg.read(t.dir));
      const snaps = (await t.shape()).snapshots.length;
      const seen: MaintainTableProgress[] = [];
      let active = 0;
      let maxActive = 0;
      const w = await workers(2, (real) => ({
        async floeRewriteGroup(input) {
          active++;
          maxActive = Math.max(maxActive, active);
          try {
            // asked while this rewrite runs: the workflow (on either worker) answers the query
            seen.push(
              await maintainTableProgress(
                env.client.workflow.getHandle(Context.current().info.workflowExecution!.workflowId),
              ),
            );
            return await real.floeRewriteGroup(input);
          } finally {
            active--;
          }
        },
      }));
      const handle = await startMaintainTable(
        env.client,
        { spec: spec(t), maxParallelGroups: 1 },
        { taskQueue: w.taskQueue },
      );
      const [result, final] = await w.run(async () => {
        const r = await handle.result();
        return [r, await maintainTableProgress(handle)] as const;
      });
      const runId = result.runId;
      expect(result).toMatchObject({
        job: 'compact',
        format: 'iceberg',
        ok: true,
        filesBefore: 16,
        filesAfter: 2,
        rowsIn: 160,
        rowsOut: 160,
      });
      expect(result.snapshotIds).toHaveLength(1);
      await expectOneCommit(t, runId, snaps, rows, ref);
      // two groups, at most maxParallelGroups (1) at once; each query saw the run rewriting
      expect(seen).toHaveLength(2);
      expect(maxActive).toBe(1);
      for (const p of seen) expect(p).toMatchObject({ runId, job: 'compact', phase: 'rewriting', tasks: 2 });
      expect(seen.map((p) => p.running.length)).toEqual([1, 1]);
      expect(seen.map((p) => p.done).sort()).toEqual([0, 1]);
      expect(final).toMatchObject({
        runId,
        phase: 'done',
        tasks: 2,
        done: 2,
        running: [],
        snapshotId: result.snapshotIds[0],
      });
      expect(planFiles(t, runId)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });

  it('a cancelled workflow stops its rewrite activities, commits nothing, removes its files and frees the table', async () => {
    const t = await smallTable();
    try {
      const rows = await t.rows();
      const snaps = (await t.shape()).snapshots.length;
      let started!: () => void;
      let starts = 0;
      const running = new Promise<void>((r) => (started = r));
      const stopped: unknown[] = [];
      const w = await workers(1, (real) => ({
        async floeRewriteGroup(input) {
          const ctx = Context.current();
          if (++starts === 2) started();
          // hold the group until Temporal delivers the cancellation (through the heartbeat), then hand the
          // activity on: the real rewrite must see its AbortSignal aborted and stop without writing
          while (!ctx.cancellationSignal.aborted) {
            ctx.heartbeat({ waiting: input.taskId });
            await new Promise((r) => setTimeout(r, 100));
          }
          try {
            return await real.floeRewriteGroup(input);
          } catch (e) {
            stopped.push(e);
            throw e;
          }
        },
      }));
      const handle = await startMaintainTable(
        env.client,
        { spec: spec(t), maxParallelGroups: 2, heartbeatTimeout: '2s' },
        { taskQueue: w.taskQueue },
      );
      const runId = handle.workflowId.replace(/^floe-compact-/, '');
      const [err, final] = await w.run(async () => {
        await running;
        expect((await lease(t))?.runId).toBe(runId);
        await handle.cancel();
        const e = await handle.result().then(
          () => 'completed',
          (x: unknown) => x,
        );
        return [e, await maintainTableProgress(handle)] as const;
      });
      expect(err).toBeInstanceOf(WorkflowFailedError);
      expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      // both groups were running (maxParallelGroups 2) and both stopped through their cancelled signal
      expect(stopped).toHaveLength(2);
      for (const e of stopped) expect(e).toBeInstanceOf(CancelledFailure);
      expect(final).toMatchObject({ runId, phase: 'cancelled', done: 0, running: [] });
      const shape = await t.shape();
      expect(shape.snapshots.length).toBe(snaps);
      expect(
        shape.snapshots.filter((s) => s.summary[RUN_ID_PROPERTY] !== undefined),
        JSON.stringify(shape.snapshots),
      ).toEqual([]);
      expect(runFiles(t, runId)).toEqual([]);
      expect(planFiles(t, runId)).toEqual([]);
      expect((await lease(t))?.releasedAtMs).toBeDefined();
      expect(await t.rows()).toEqual(rows);
    } finally {
      t.cleanup();
    }
  });

  it('a commit activity retried after its commit succeeded (worker died before reporting) is a no-op: one commit', async () => {
    const t = await smallTable();
    try {
      const rows = await t.rows();
      const ref = canonicalRows(await pyiceberg.read(t.dir));
      const snaps = (await t.shape()).snapshots.length;
      const commits: { attempt: number; snapshotIds: string[]; warnings: string[] }[] = [];
      const w = await workers(1, (real) => ({
        async floeCommit(input) {
          const r = await real.floeCommit(input);
          const attempt = Context.current().info.attempt;
          commits.push({ attempt, snapshotIds: r.snapshotIds, warnings: r.warnings });
          // the first attempt committed; its result never reaches Temporal, which retries the activity
          if (attempt === 1)
            throw ApplicationFailure.retryable('worker died after the commit, before reporting it', 'SimulatedCrash');
          return r;
        },
      }));
      const handle = await startMaintainTable(env.client, { spec: spec(t) }, { taskQueue: w.taskQueue });
      const result = await w.run(() => handle.result());
      expect(commits.map((c) => c.attempt)).toEqual([1, 2]);
      expect(commits[0]!.snapshotIds).toHaveLength(1);
      expect(commits[0]!.warnings).toEqual([]);
      expect(result.snapshotIds).toEqual(commits[0]!.snapshotIds);
      expect(result.warnings.join(' ')).toMatch(/already committed/);
      await expectOneCommit(t, result.runId, snaps, rows, ref);
      expect(runFiles(t, result.runId)).toHaveLength(2);
    } finally {
      t.cleanup();
    }
  });

  it('expire runs as one floeMaintain activity, holding the table lease', async () => {
    const t = await smallTable(3, 4);
    try {
      const before = (await t.shape()).snapshots.length;
      const w = await workers(1);
      const handle = await startMaintainTable(
        env.client,
        { spec: { table: t.dir, job: 'expire', expire: { olderThan: '1ms', retainLast: 1 } } },
        { taskQueue: w.taskQueue },
      );
      const [result, final] = await w.run(async () => {
        const r = await handle.result();
        return [r, await maintainTableProgress(handle)] as const;
      });
      expect(result).toMatchObject({ job: 'expire', ok: true });
      expect(before).toBeGreaterThan(1);
      expect(result.expiredSnapshotIds).toHaveLength(before - 1);
      expect((await t.shape()).snapshots).toHaveLength(1);
      const l = await lease(t);
      expect(l?.job).toBe('expire');
      expect(l?.releasedAtMs).toBeDefined();
      expect(final).toMatchObject({ job: 'expire', phase: 'done' });
    } finally {
      t.cleanup();
    }
  });

  it('upsertTableSchedule creates one Schedule per table with overlap SKIP, and updates it in place', async () => {
    const id = `floe-test-schedule-${process.pid}`;
    const input = { spec: { table: '/nowhere/events', job: 'compact' as const }, maxParallelGroups: 2 };
    await upsertTableSchedule(env.client, {
      scheduleId: id,
      spec: { intervals: [{ every: '1h' }] },
      input,
      taskQueue: 'floe-never-polled',
    });
    const handle = env.client.schedule.getHandle(id);
    try {
      let d = await handle.describe();
      expect(d.policies.overlap).toBe('SKIP');
      expect(d.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: 'maintainTable',
        taskQueue: 'floe-never-polled',
        args: [input],
      });
      await upsertTableSchedule(env.client, {
        scheduleId: id,
        spec: { intervals: [{ every: '2h' }] },
        input: { ...input, maxParallelGroups: 3 },
        taskQueue: 'floe-never-polled',
      });
      d = await handle.describe();
      expect(d.policies.overlap).toBe('SKIP');
      expect(d.spec.intervals?.[0]?.every).toBe(2 * 3600_000);
      expect(d.action).toMatchObject({ args: [{ maxParallelGroups: 3 }] });
    } finally {
      await handle.delete();
    }
  });
});
