/**
 * Issue 12.4: floe on BullMQ against a real Redis server (Debian redis-server, scripts/setup-redis.sh) with
 * worker processes: two workers share a compaction; a worker killed mid-group; a worker killed after the
 * commit but before the ack. Every case ends with exactly one commit carrying the run id and the same rows,
 * read by floe and by a reference engine (PyIceberg).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFloeWorkers, enqueueMaintenance } from '../../src/shells/bindings/bullmq.js';
import { RUN_ID_PROPERTY } from '../../src/distributed/seam.js';
import { readTableLease } from '../../src/lease/lease.js';
import { LocalObjectStore } from '../../connectors/storage/index.js';
import type { MaintenanceJobSpec } from '../../src/orchestration/job-types.js';
import { expectOneCommit } from '../support/one-commit.js';
import { canonicalRows, pyiceberg, repoRoot } from '../oracles/index.js';
import { smallTable, type SmallTable } from '../../test/distributed/small-table.js';
import { startRedis, type RedisServer } from './redis.js';

let redis: RedisServer;
const children: ChildProcess[] = [];
beforeAll(async () => {
  redis = await startRedis();
  const py = await pyiceberg.available();
  if (!py.ok) throw new Error(`PyIceberg is needed as the reference reader: ${py.reason} (scripts/setup-oracles.sh)`);
});
afterAll(async () => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await redis?.stop();
});

interface Proc {
  child: ChildProcess;
  out: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

async function startWorker(queue: string, die = ''): Promise<Proc> {
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
  await new Promise<void>((resolve, reject) => {
    const t = setInterval(() => {
      if (out.includes('ready')) {
        clearInterval(t);
        resolve();
      } else if (child.exitCode !== null || child.signalCode !== null) {
        clearInterval(t);
        reject(new Error(`worker exited before it was ready:\n${out}`));
      }
    }, 50);
  });
  return { child, out: () => out, exited };
}

async function stopWorker(p: Proc): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    p.child.kill('SIGTERM');
    await p.exited;
  }
}

const spec = (t: SmallTable): MaintenanceJobSpec => ({
  table: t.dir,
  job: 'compact',
  compact: { strategy: 'binpack' },
  properties: { 'min-input-files': '2' },
});
const leaseStore = () => new LocalObjectStore('/');
const connection = () => ({ host: redis.host, port: redis.port });

describe('BullMQ binding (real Redis, worker processes)', () => {
  it('two worker processes compact one table: one commit, the same rows', async () => {
    const t = await smallTable();
    try {
      const rows = await t.rows();
      const ref = canonicalRows(await pyiceberg.read(t.dir));
      const snaps = (await t.shape()).snapshots.length;
      const a = await startWorker('q1');
      const b = await startWorker('q1');
      const run = await enqueueMaintenance({ connection: connection(), queueName: 'q1' }, spec(t));
      // enqueueing the same run again adds nothing
      expect(
        (await enqueueMaintenance({ connection: connection(), queueName: 'q1', runId: run.runId }, spec(t))).jobId,
      ).toBe(run.jobId);
      // a second run on the leased table is refused at once, having written nothing
      await expect(enqueueMaintenance({ connection: connection(), queueName: 'q1' }, spec(t))).rejects.toMatchObject({
        context: { busy: true, runId: run.runId },
      });
      const result = await run.waitUntilFinished(120_000);
      expect(result).toMatchObject({
        runId: run.runId,
        job: 'compact',
        format: 'iceberg',
        ok: true,
        filesBefore: 16,
        filesAfter: 2,
      });
      expect(result.snapshotIds).toHaveLength(1);
      await expectOneCommit(t, run.runId, snaps, rows, ref);
      await Promise.all([stopWorker(a), stopWorker(b)]);
    } finally {
      t.cleanup();
    }
  });

  it('a worker killed mid-group: the other worker retries the group; one commit, the same rows', async () => {
    const t = await smallTable();
    try {
      const rows = await t.rows();
      const ref = canonicalRows(await pyiceberg.read(t.dir));
      const snaps = (await t.shape()).snapshots.length;
      const doomed = await startWorker('q2', 'mid-group');
      const run = await enqueueMaintenance({ connection: connection(), queueName: 'q2' }, spec(t));
      const end = await doomed.exited;
      expect(end.signal).toBe('SIGKILL');
      expect(doomed.out()).toMatch(/dying in floe-rewrite-/);
      const other = await startWorker('q2');
      const result = await run.waitUntilFinished(120_000);
      expect(result.snapshotIds).toHaveLength(1);
      await expectOneCommit(t, run.runId, snaps, rows, ref);
      await stopWorker(other);
    } finally {
      t.cleanup();
    }
  });

  it('a worker killed after the commit, before the ack: the retried commit is a no-op; one commit', async () => {
    const t = await smallTable();
    try {
      const rows = await t.rows();
      const ref = canonicalRows(await pyiceberg.read(t.dir));
      const snaps = (await t.shape()).snapshots.length;
      const doomed = await startWorker('q3', 'after-commit');
      const run = await enqueueMaintenance({ connection: connection(), queueName: 'q3' }, spec(t));
      const end = await doomed.exited;
      expect(end.signal).toBe('SIGKILL');
      const first = /committed \S+ (\d+) again=false/.exec(doomed.out());
      expect(first, doomed.out()).not.toBeNull();
      const other = await startWorker('q3');
      const result = await run.waitUntilFinished(120_000);
      expect(result.snapshotIds).toEqual([first![1]]);
      expect(result.warnings.join(' ')).toMatch(/already committed/);
      expect(other.out()).toMatch(/again=true/);
      await expectOneCommit(t, run.runId, snaps, rows, ref);
      await stopWorker(other);
    } finally {
      t.cleanup();
    }
  });

  it('expire runs as a single job in-process workers take, holding the table lease', async () => {
    const t = await smallTable(3, 4);
    const workers = createFloeWorkers({ connection: connection(), queueName: 'q4', concurrency: 2 });
    try {
      const run = await enqueueMaintenance(
        { connection: connection(), queueName: 'q4' },
        { table: t.dir, job: 'expire', expire: { olderThan: '1ms', retainLast: 1 } },
      );
      const result = await run.waitUntilFinished(60_000);
      expect(result).toMatchObject({ runId: run.runId, job: 'expire', ok: true });
      expect(result.expiredSnapshotIds.length).toBeGreaterThan(0);
      const lease = await readTableLease(new LocalObjectStore('/'), `${t.dir.slice(1)}/.floe/lease.json`);
      expect(lease?.job).toBe('expire');
      expect(lease?.releasedAtMs).toBeDefined();
    } finally {
      await workers.close();
      t.cleanup();
    }
  });

  it('a rewrite that fails for good fails the run, frees the table and removes what the run wrote', async () => {
    const t = await smallTable();
    const workers = createFloeWorkers({ connection: connection(), queueName: 'q5', concurrency: 2 });
    try {
      await workers.close(); // enqueue while no worker runs, then break the table under the plan
      const rows = await t.rows();
      const run = await enqueueMaintenance({ connection: connection(), queueName: 'q5', attempts: 1 }, spec(t));
      const victim = readdirSync(path.join(t.dir, 'data'), { recursive: true })
        .map(String)
        .find((p) => p.endsWith('.parquet') && p.includes('region=eu'))!;
      const bytes = readFileSync(path.join(t.dir, 'data', victim));
      rmSync(path.join(t.dir, 'data', victim));
      const again = createFloeWorkers({ connection: connection(), queueName: 'q5', concurrency: 2 });
      try {
        await expect(run.waitUntilFinished(60_000)).rejects.toThrow();
        const lease = leaseStore();
        const runFiles = () =>
          readdirSync(path.join(t.dir, 'data'), { recursive: true })
            .map(String)
            .filter((p) => path.basename(p).startsWith(`floe-run-${run.runId}`));
        const released = async () =>
          (await readTableLease(lease, `${t.dir.slice(1)}/.floe/lease.json`))?.releasedAtMs !== undefined;
        // the clean-up runs on the worker after the failure is reported: wait (bounded) for it to end
        for (
          let i = 0;
          i < 400 &&
          !(
            (await released()) &&
            runFiles().length === 0 &&
            !existsSync(path.join(t.dir, '.floe/runs', run.runId, 'plan.json'))
          );
          i++
        )
          await new Promise((r) => setTimeout(r, 50));
        expect(await released()).toBe(true);
        expect(runFiles()).toEqual([]);
        expect(existsSync(path.join(t.dir, '.floe/runs', run.runId, 'plan.json'))).toBe(false);
        expect((await t.shape()).snapshots.some((s) => s.summary[RUN_ID_PROPERTY] !== undefined)).toBe(false);
        writeFileSync(path.join(t.dir, 'data', victim), bytes);
        expect(await t.rows()).toEqual(rows);
      } finally {
        await again.close();
      }
    } finally {
      t.cleanup();
    }
  });
});
