/**
 * Issue 12.1 on Temporal for Paimon: `maintainTable` compacts a Java-Paimon-written primary-key table (two
 * partitions × two buckets) through floePlan → floeRewriteGroup per bucket on two workers → floeCommit,
 * against a real Temporal dev server. One COMPACT snapshot by the run's commit user, the same rows read by
 * Java Paimon, which keeps writing on top; a commit activity retried after its commit went through commits
 * nothing again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Worker } from '@temporalio/worker';
import {
  createFloeActivities,
  startMaintainTable,
  workflowBundle,
  type FloeActivities,
} from '../../src/shells/bindings/temporal.js';
import type { MaintenanceJobSpec } from '../../src/orchestration/job-types.js';
import { javaPaimon } from '../oracles/index.js';
import {
  expectOnePaimonCompact,
  javaPaimonTable,
  javaRows,
  removeJavaPaimonTables,
  rowsOf,
  snapshotsOf,
  warehouseOf,
} from '../support/java-paimon-table.js';
import { skipTemporal, startTemporal } from './temporal-server.js';

let env: TestWorkflowEnvironment;
let queueNo = 0;
beforeAll(async () => {
  if (skipTemporal) return;
  const j = await javaPaimon.available();
  if (!j.ok) throw new Error(`Java Paimon is needed as the reference engine: ${j.reason} (scripts/setup-oracles.sh)`);
  env = await startTemporal();
});
afterAll(async () => {
  await env?.teardown();
  removeJavaPaimonTables();
});

const spec = (table: string): MaintenanceJobSpec => ({ table, job: 'compact', compact: { full: true } });

/** `n` workers on a fresh task queue (one connection each), running while `body` does. */
async function withWorkers<T>(
  n: number,
  wrap: (real: FloeActivities) => Partial<FloeActivities>,
  body: (taskQueue: string) => Promise<T>,
): Promise<T> {
  const taskQueue = `floe-paimon-${process.pid}-${++queueNo}`;
  const real = createFloeActivities();
  const bundle = await workflowBundle();
  const connections = await Promise.all(
    Array.from({ length: n }, () => NativeConnection.connect({ address: env.address })),
  );
  const ws = await Promise.all(
    connections.map((connection) =>
      Worker.create({
        connection,
        taskQueue,
        workflowBundle: bundle,
        activities: { ...real, ...wrap(real) },
        maxConcurrentActivityTaskExecutions: 2,
      }),
    ),
  );
  const p = body(taskQueue);
  const all = ws.map((w) => w.runUntil(p.catch(() => undefined)));
  try {
    return await p;
  } finally {
    await Promise.all(all);
    await Promise.all(connections.map((c) => c.close()));
  }
}

describe.skipIf(skipTemporal)('Temporal binding, Paimon tables (real Temporal dev server, Java Paimon)', () => {
  it('two workers compact a Java-written table bucket by bucket: one commit; Java reads the same rows and keeps writing', async () => {
    const table = await javaPaimonTable();
    const refRows = await javaRows(table);
    expect(refRows.length).toBe(60);
    const before = (await snapshotsOf(table)).length;
    const rewrites: string[] = [];
    const commits: { attempt: number; snapshotIds: string[]; warnings: string[] }[] = [];
    const result = await withWorkers(
      2,
      (real) => ({
        async floeRewriteGroup(input) {
          rewrites.push(input.taskId);
          return real.floeRewriteGroup(input);
        },
        async floeCommit(input) {
          const r = await real.floeCommit(input);
          const attempt = Context.current().info.attempt;
          commits.push({ attempt, snapshotIds: r.snapshotIds, warnings: r.warnings });
          // the first attempt committed; its result never reaches Temporal, which retries the activity
          if (attempt === 1)
            throw ApplicationFailure.retryable('worker died after the commit, before reporting it', 'SimulatedCrash');
          return r;
        },
      }),
      async (taskQueue) => {
        const handle = await startMaintainTable(env.client, { spec: spec(table), maxParallelGroups: 4 }, { taskQueue });
        return handle.result();
      },
    );
    expect(result).toMatchObject({ job: 'compact', format: 'paimon', ok: true, filesAfter: 4 });
    expect(result.snapshotIds).toHaveLength(1);
    expect(rewrites.sort()).toEqual([
      'bucket-0@dt=2024-01-01',
      'bucket-0@dt=2024-01-02',
      'bucket-1@dt=2024-01-01',
      'bucket-1@dt=2024-01-02',
    ]);
    expect(commits.map((c) => c.attempt)).toEqual([1, 2]);
    expect(commits[1]!.snapshotIds).toEqual(commits[0]!.snapshotIds);
    expect(commits[1]!.warnings.join(' ')).toMatch(/already committed/);
    await expectOnePaimonCompact(table, result.runId, before, refRows);
    await javaPaimon.write(warehouseOf(table), { database: 'db', table: 'events', commits: [rowsOf(5)] });
    const more = await javaRows(table);
    expect(more.length).toBe(72);
    expect(more.filter((l) => refRows.includes(l)).length).toBe(60);
  });
});
