/**
 * Issue 28.4 / 29.1: a lease whose holder process is gone from this host is stale at once. Real processes:
 * a `sleep` child whose pid and start time a lease records (alive → busy; SIGKILLed → taken over; the pid
 * with another start time → taken over), and `floe compact` SIGKILLed mid-job by its kill point, after which
 * the next `floe compact` takes the lease over, says so, and succeeds at once. The same kill during a sort
 * compaction's spill leaves its `floe-sort-*` directory; the next sort removes it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../../connectors/storage/index.js';
import { acquireTableLease, readTableLease, type LeaseRecord } from '../../src/lease/lease.js';
import { currentProcessIdentity, processStartTicks } from '../../util/process-identity.js';
import { copyFixture, floe, spawnFloe } from '../shells/cli/support.js';

const store = new LocalObjectStore('/');
const work = mkdtempSync(path.join(tmpdir(), 'floe-dead-lease-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});

function sleeper(): Promise<ChildProcess> {
  const c = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(c);
  return new Promise((resolve, reject) => {
    c.once('spawn', () => resolve(c));
    c.once('error', reject);
  });
}

async function kill(c: ChildProcess): Promise<void> {
  const gone = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await gone;
}

/** Writes a live-looking lease (expires in 10 minutes) held by `process`. */
async function leaseHeldBy(key: string, proc: LeaseRecord['process']): Promise<void> {
  const t = Date.now();
  const rec: LeaseRecord = {
    version: 1,
    table: key,
    holder: `${proc?.host}:${proc?.pid}`,
    runId: 'run-of-the-dead',
    job: 'compact',
    token: `tok-${Math.random()}`,
    acquiredAtMs: t,
    renewedAtMs: t,
    expiresAtMs: t + 600_000,
    ...(proc ? { process: proc } : {}),
  };
  await store.put(key, new TextEncoder().encode(JSON.stringify(rec)));
}

let n = 0;
const freshKey = () => `${work.slice(1)}/t${n++}/.floe/lease.json`;

describe('a lease whose holder process is gone is stale at once', () => {
  it('a live holder process on this host keeps the table busy; SIGKILLed, its lease is taken over and said so', async () => {
    const c = await sleeper();
    const key = freshKey();
    const me = currentProcessIdentity();
    await leaseHeldBy(key, { ...me, pid: c.pid!, startTicks: processStartTicks(c.pid!)! });
    await expect(acquireTableLease(store, key, { table: 't', job: 'expire', heartbeatMs: 0 })).rejects.toMatchObject({
      context: { busy: true },
    });
    await kill(c);
    const seen: string[] = [];
    const lease = await acquireTableLease(store, key, {
      table: 't',
      job: 'expire',
      heartbeatMs: 0,
      onTakeover: (t) => seen.push(t.why),
    });
    expect(lease.tookOver).toMatchObject({ runId: 'run-of-the-dead', job: 'compact' });
    expect(seen).toEqual([`process ${c.pid} on this host (${hostname()}) is gone`]);
    await lease.release();
  });

  it('a recycled pid (same pid, another start time) is not taken for the holder', async () => {
    const c = await sleeper();
    const key = freshKey();
    await leaseHeldBy(key, { ...currentProcessIdentity(), pid: c.pid!, startTicks: '1' });
    const lease = await acquireTableLease(store, key, { table: 't', job: 'expire', heartbeatMs: 0 });
    expect(lease.tookOver?.why).toMatch(/the pid now names another process/);
    await lease.release();
    await kill(c);
  });

  it('a holder on another host, or a lease without a process, only expires', async () => {
    for (const proc of [{ host: 'some-other-host', pid: 1, startTicks: '1' }, undefined]) {
      const key = freshKey();
      await leaseHeldBy(key, proc);
      await expect(acquireTableLease(store, key, { table: 't', job: 'expire', heartbeatMs: 0 })).rejects.toMatchObject({
        context: { busy: true },
      });
    }
  });

  it('a holder from before this host rebooted (another boot id) is gone', async () => {
    const key = freshKey();
    await leaseHeldBy(key, { ...currentProcessIdentity(), bootId: 'an-earlier-boot' });
    const lease = await acquireTableLease(store, key, { table: 't', job: 'expire', heartbeatMs: 0 });
    expect(lease.tookOver?.why).toMatch(/restarted since/);
    await lease.release();
  });
});

describe('floe SIGKILLed mid-job', () => {
  const ice = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
  afterAll(() => ice.cleanup());
  const leaseKey = `${ice.dir.slice(1)}/.floe/lease.json`;

  it('the next compact takes the dead run’s lease over at once (exit 0, not 75) and says so', async () => {
    const before = await floe('scan', ice.dir, '--count');
    const killed = await spawnFloe(['compact', ice.dir, '--strategy', 'binpack', '-o', 'rewrite-all=true'], {
      env: { FLOE_FAULT_KILL_AT: 'iceberg.data.after-first-file' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const left = await readTableLease(store, leaseKey);
    expect(left?.releasedAtMs).toBeUndefined();
    expect(left!.expiresAtMs).toBeGreaterThan(Date.now());
    expect(left!.process).toMatchObject({ host: hostname() });
    const t0 = Date.now();
    const next = await spawnFloe(['compact', ice.dir, '--strategy', 'binpack', '-o', 'rewrite-all=true']);
    expect(next.code, next.stderr).toBe(0);
    expect(Date.now() - t0).toBeLessThan(left!.expiresAtMs - t0);
    expect(next.stderr).toMatch(
      new RegExp(
        `took over the lease of .* from ${left!.holder} \\(run ${left!.runId}, compact\\): process \\d+ on this host .* is gone`,
      ),
    );
    expect((await floe('scan', ice.dir, '--count')).stdout).toBe(before.stdout);
  }, 120_000);

  it('a sort compaction killed while spilling leaves its spill directory; the next sort removes it', async () => {
    const spill = path.join(work, 'spill');
    const args = ['compact', ice.dir, '--strategy', 'sort', '--sort-order', 'i', '-o', 'rewrite-all=true'];
    const killed = await spawnFloe([...args, '--sort-memory', '1b', '--spill-dir', spill, '--no-lease'], {
      env: { FLOE_FAULT_KILL_AT: 'sort.spill.after-first-run' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const left = readdirSync(spill).filter((d) => d.startsWith('floe-sort-'));
    expect(left.length).toBe(1);
    const next = await spawnFloe([...args, '--spill-dir', spill]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`removed the spill directory ${path.join(spill, left[0]!)} of a killed run`);
    expect(existsSync(path.join(spill, left[0]!))).toBe(false);
  }, 120_000);
});
