import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isFloeError } from '../../../util/errors.js';
import { cpuProfileArgs, WorkerPool, type Json } from '../../../src/core/execution/worker-pool.js';

const JOBS = new URL('./fixtures/pool-jobs.ts', import.meta.url);
const BROKEN = new URL('./fixtures/pool-broken.ts', import.meta.url);

const pools: WorkerPool[] = [];
function pool(opts: Partial<ConstructorParameters<typeof WorkerPool>[0]> = {}): WorkerPool {
  const p = new WorkerPool({ module: JOBS, size: 2, ...opts });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.terminate()));
});

const tmp = () => mkdtempSync(path.join(os.tmpdir(), 'floe-pool-'));
const release = (file: string) => writeFileSync(file, '');

describe('WorkerPool', () => {
  it("bounds each worker's young generation when asked (youngGenerationMb), else leaves V8's default", async () => {
    const small = (await pool({ size: 1, youngGenerationMb: 3 }).run('newSpaceBytes', null)) as { size: number };
    const dflt = (await pool({ size: 1 }).run('newSpaceBytes', null)) as { size: number };
    expect(small.size).toBeGreaterThan(0);
    expect(small.size).toBeLessThanOrEqual(3 * 1024 * 1024);
    expect(dflt.size).toBeGreaterThan(2 * small.size);
  });

  it('runs jobs in worker threads and returns their JSON results; bigints cross as decimal strings', async () => {
    const p = pool();
    const big = 2n ** 63n - 2n;
    const results = await Promise.all([1, 2, 3, 4, 5].map((n) => p.run('sum', { values: [n, n, n], big })));
    expect(results).toEqual([1, 2, 3, 4, 5].map((n) => ({ total: 3 * n, big: '9223372036854775807' })));
    await p.close();
    expect(p.running).toBe(0);
  });

  it('runs Parquet work in parallel workers, each with its own parquet-wasm instance', async () => {
    const p = pool({ size: 2 });
    const first = (2n ** 62n).toString();
    const results = await Promise.all([
      p.run('parquetRoundTrip', { rows: 20_000, first }),
      p.run('parquetRoundTrip', { rows: 10, first }),
    ]);
    expect(results).toMatchObject([
      { rows: 20_000, last: (2n ** 62n + 19_999n).toString() },
      { rows: 10, last: (2n ** 62n + 9n).toString() },
    ]);
  });

  it('runs up to `size` jobs at once', async () => {
    const dir = tmp();
    const p = pool({ size: 2 });
    const go = path.join(dir, 'go');
    const held = [
      p.run('hold', { until: go, tag: 'x' }),
      p.run('hold', { until: go, tag: 'y' }),
      p.run('hold', { until: go, tag: 'z' }),
    ];
    await expect.poll(() => p.running, { timeout: 30_000 }).toBe(2);
    expect(p.queued).toBe(1);
    release(go);
    expect(await Promise.all(held)).toEqual(['x', 'y', 'z']);
  });

  it('passes progress messages to onProgress, in order, before the result', async () => {
    const p = pool({ size: 1 });
    const seen: Json[] = [];
    const r = await p.run('steps', { steps: 4 }, { onProgress: (d) => seen.push(d) });
    expect(seen).toEqual([1, 2, 3, 4].map((step) => ({ step, of: 4 })));
    expect(r).toMatchObject({ sent: 4 });
  });

  it('cancels a running job through its signal: the job stops between row groups and rejects with AbortError', async () => {
    const p = pool({ size: 1 });
    const ac = new AbortController();
    const groups: number[] = [];
    const job = p.run(
      'untilCancelled',
      {},
      {
        signal: ac.signal,
        onProgress: (d) => {
          groups.push((d as { group: number }).group);
          if (groups.length === 3) ac.abort();
        },
      },
    );
    const err = await job.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(err?.name).toBe('AbortError');
    expect(String((err?.cause as Error | undefined)?.message)).toMatch(/stopped after \d+ row groups/);
    // the worker survived the cancel and runs the next job
    expect(await p.run('sum', { values: [2], big: '0' })).toEqual({ total: 2, big: '1' });
  });

  it('terminates a worker that ignores the cancel after the grace period, and replaces it', async () => {
    const p = pool({ size: 1, cancelGraceMs: 50 });
    const ac = new AbortController();
    const job = p.run('spin', {}, { signal: ac.signal });
    await expect.poll(() => p.running, { timeout: 30_000 }).toBe(1);
    ac.abort();
    await expect(job).rejects.toMatchObject({ name: 'AbortError' });
    expect(await p.run('sum', { values: [1, 1], big: '5' })).toEqual({ total: 2, big: '6' });
  });

  it('drops a queued job whose signal aborts before it starts', async () => {
    const dir = tmp();
    const p = pool({ size: 1 });
    const first = p.run('hold', { until: path.join(dir, 'go'), tag: 'first' });
    const ac = new AbortController();
    const second = p.run('sum', { values: [1], big: '0' }, { signal: ac.signal });
    await expect.poll(() => p.queued, { timeout: 30_000 }).toBe(1);
    ac.abort();
    await expect(second).rejects.toMatchObject({ name: 'AbortError' });
    expect(p.queued).toBe(0);
    release(path.join(dir, 'go'));
    expect(await first).toBe('first');
  });

  it('rejects the job of a worker that crashes (uncaught error or process.exit) and keeps serving the rest', async () => {
    const p = pool({ size: 1 });
    const crashed = p.run('crash', { how: 'throw' });
    const next = p.run('sum', { values: [3], big: '1' });
    await expect(crashed).rejects.toThrow(/worker 0 died running crash \(exit code 1\): boom from inside the worker/);
    expect(await next).toEqual({ total: 3, big: '2' });
    const exited = await p.run('crash', { how: 'exit' }).catch((e: unknown) => e);
    expect(isFloeError(exited, 'Internal')).toBe(true);
    expect(String(exited)).toMatch(/died running crash \(exit code 7\)/);
    expect(await p.run('sum', { values: [4], big: '1' })).toEqual({ total: 4, big: '2' });
  });

  it('returns a job’s FloeError with its kind and context', async () => {
    const p = pool({ size: 1 });
    const e = await p.run('failFloe', { file: 's3://b/t/data/x.parquet' }).catch((x: unknown) => x);
    expect(isFloeError(e, 'Corrupt')).toBe(true);
    expect(e).toMatchObject({
      message: 'bad file s3://b/t/data/x.parquet',
      context: { file: 's3://b/t/data/x.parquet' },
    });
    const missing = await p.run('noSuchFunction', {}).catch((x: unknown) => x as Error);
    expect(String(missing)).toMatch(/exports no function noSuchFunction/);
  });

  it('bounds the queue: submit() waits for room while maxQueued jobs are waiting', async () => {
    const dir = tmp();
    const go = path.join(dir, 'go');
    const p = pool({ size: 1, maxQueued: 2 });
    const accepted: string[] = [];
    const results: Promise<Json>[] = [];
    const producer = (async () => {
      for (const tag of ['a', 'b', 'c', 'd', 'e']) {
        const { result } = await p.submit('hold', { until: go, tag });
        accepted.push(tag);
        results.push(result);
      }
    })();
    // one job runs, two wait; the fourth submit is held back
    await expect.poll(() => p.running, { timeout: 30_000 }).toBe(1);
    await expect.poll(() => accepted.length, { timeout: 30_000 }).toBe(3);
    await new Promise((r) => setTimeout(r, 100));
    expect(accepted).toEqual(['a', 'b', 'c']);
    expect(p.queued).toBe(2);
    // a submit held back for room gives up when its signal aborts
    const ac = new AbortController();
    const held = p.submit('sum', { values: [1], big: '0' }, { signal: ac.signal }).then(
      () => new Error('accepted'),
      (e: unknown) => e as Error,
    );
    ac.abort();
    expect((await held).name).toBe('AbortError');
    release(go);
    await producer;
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('fails every job with a clear error when the module cannot be loaded (no respawn loop, no hang)', async () => {
    const p = pool({ module: BROKEN, size: 2 });
    const jobs = [p.run('anything', {}), p.run('anything', {}), p.run('anything', {})];
    for (const j of jobs)
      await expect(j).rejects.toThrow(/cannot load .*pool-broken\.ts in a worker: this module cannot be loaded/);
    await expect(p.run('anything', {})).rejects.toThrow(/cannot load/);
  });

  it('close() finishes queued work, then refuses new jobs; terminate() rejects what is left', async () => {
    const p = pool({ size: 1 });
    const a = p.run('sum', { values: [1], big: '0' });
    const b = p.run('sum', { values: [2], big: '0' });
    await p.close();
    expect(await Promise.all([a, b])).toEqual([
      { total: 1, big: '1' },
      { total: 2, big: '1' },
    ]);
    await expect(p.run('sum', { values: [], big: '0' })).rejects.toThrow(/closed/);

    const dir = tmp();
    const q = pool({ size: 1 });
    const held = q.run('hold', { until: path.join(dir, 'never'), tag: 'x' }).catch((e: unknown) => e);
    const waiting = q.run('sum', { values: [1], big: '0' }).catch((e: unknown) => e);
    await expect.poll(() => q.running, { timeout: 30_000 }).toBe(1);
    await q.terminate();
    expect(String(await held)).toMatch(/terminated while hold ran/);
    expect(String(await waiting)).toMatch(/terminated before sum started/);
  });
});

describe('cpuProfileArgs', () => {
  it("passes the process's CPU-profiling options on to workers, in both spellings, and nothing else", () => {
    expect(
      cpuProfileArgs([
        '--expose-gc',
        '--cpu-prof',
        '--cpu-prof-dir',
        '/tmp/p',
        '--cpu-prof-interval=500',
        '--cpu-prof-name',
        'x.cpuprofile',
        '--max-old-space-size=512',
      ]),
    ).toEqual(['--cpu-prof', '--cpu-prof-dir', '/tmp/p', '--cpu-prof-interval=500']);
    expect(cpuProfileArgs(['--cpu-prof-dir=/d'])).toEqual(['--cpu-prof-dir=/d']);
    expect(cpuProfileArgs([])).toEqual([]);
  });
});
