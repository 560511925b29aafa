/**
 * Issue 12.1 on BullMQ for Paimon: a Java-Paimon-written primary-key table (two partitions × two buckets,
 * small files) compacted as a BullMQ flow — one rewrite job per bucket — by two worker processes against a
 * real Redis. Exactly one COMPACT snapshot by the run's commit user; Java Paimon reads the same rows and
 * keeps writing on top. A worker killed after the commit, before the ack, leaves one commit too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueMaintenance } from '../../src/shells/bindings/bullmq.js';
import type { MaintenanceJobSpec } from '../../src/orchestration/job-types.js';
import { javaPaimon, repoRoot } from '../oracles/index.js';
import {
  expectOnePaimonCompact,
  javaPaimonTable,
  javaRows,
  removeJavaPaimonTables,
  rowsOf,
  snapshotsOf,
  warehouseOf,
} from '../support/java-paimon-table.js';
import { startRedis, type RedisServer } from './redis.js';

let redis: RedisServer;
const children: ChildProcess[] = [];
beforeAll(async () => {
  const j = await javaPaimon.available();
  if (!j.ok) throw new Error(`Java Paimon is needed as the reference engine: ${j.reason} (scripts/setup-oracles.sh)`);
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop();
  removeJavaPaimonTables();
});

async function startWorker(queue: string, die = '') {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(repoRoot, 'integration/bullmq/worker-process.ts')],
    {
      cwd: repoRoot,
      env: { ...process.env, REDIS_PORT: String(redis.port), QUEUE: queue, FLOE_TEST_DIE: die },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  for (let i = 0; !out.includes('ready'); i++) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`worker exited before it was ready:\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  };
  return { out: () => out, exited, stop };
}

const spec = (table: string): MaintenanceJobSpec => ({ table, job: 'compact', compact: { full: true } });
const connection = () => ({ host: redis.host, port: redis.port });

describe('BullMQ binding, Paimon tables (real Redis, worker processes, Java Paimon)', () => {
  it('two worker processes compact a Java-written table: one commit, Java reads the same rows and keeps writing', async () => {
    const table = await javaPaimonTable();
    const warehouse = warehouseOf(table);
    const refRows = await javaRows(table);
    expect(refRows.length).toBe(60);
    const before = (await snapshotsOf(table)).length;
    const a = await startWorker('qp1');
    const b = await startWorker('qp1');
    try {
      const run = await enqueueMaintenance({ connection: connection(), queueName: 'qp1' }, spec(table));
      expect(run.jobId).toBe(`floe-commit-${run.runId}`); // a flow: rewrite jobs per bucket, then the commit
      const result = await run.waitUntilFinished(180_000);
      expect(result).toMatchObject({ runId: run.runId, job: 'compact', format: 'paimon', ok: true, filesAfter: 4 });
      expect(result.snapshotIds).toHaveLength(1);
      expect(`${a.out()}${b.out()}`).toMatch(/completed floe-rewrite-/);
      await expectOnePaimonCompact(table, run.runId, before, refRows);
      // Java Paimon keeps writing on top of floe's snapshot
      await javaPaimon.write(warehouse, { database: 'db', table: 'events', commits: [rowsOf(5)] });
      const more = await javaRows(table);
      expect(more.length).toBe(72);
      expect(more.filter((l) => refRows.includes(l)).length).toBe(60);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('a worker killed after the commit, before the ack: the retried commit is a no-op; one commit', async () => {
    const table = await javaPaimonTable();
    const refRows = await javaRows(table);
    const before = (await snapshotsOf(table)).length;
    const doomed = await startWorker('qp2', 'after-commit');
    const run = await enqueueMaintenance({ connection: connection(), queueName: 'qp2' }, spec(table));
    const end = await doomed.exited;
    expect(end.signal).toBe('SIGKILL');
    const first = /committed \S+ (\d+) again=false/.exec(doomed.out());
    expect(first, doomed.out()).not.toBeNull();
    const other = await startWorker('qp2');
    try {
      const result = await run.waitUntilFinished(180_000);
      expect(result.snapshotIds).toEqual([first![1]]);
      expect(result.warnings.join(' ')).toMatch(/already committed/);
      expect(other.out()).toMatch(/again=true/);
      await expectOnePaimonCompact(table, run.runId, before, refRows);
    } finally {
      await other.stop();
    }
  });
});
