import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../src/service/config.js';
import { MaintenanceService } from '../../src/service/service.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../src/service/http.js';
import { FakeClock, FakeRunner, waitFor } from './fakes.js';

const T0 = Date.UTC(2025, 0, 1);
let dir: string;
let svc: MaintenanceService;
let http: HttpEndpoint;
const runner = new FakeRunner();
const base = () => `http://127.0.0.1:${http.port}`;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-service-http-'));
  const config = await parseServiceConfig(
    { stateDir: 'state', tables: [{ name: 'orders', location: '/w/orders', jobs: { compact: 'hourly', expire: 'daily' } }] },
    'floe.yaml',
    dir,
  );
  svc = new MaintenanceService(config, { clock: new FakeClock(T0), runJob: runner.run, log: () => {} });
  await svc.init();
  http = await startHttpEndpoint(svc, 0);
  svc.start();
  // the first scheduled run: compact rewrites 12 files into 1
  runner.calls[0]!.succeed({ bytesRead: 5000, bytesWritten: 4096, filesBefore: 12, filesAfter: 1, snapshotIds: ['77'] });
  await waitFor(() => runner.calls.length === 2, 'expire');
  runner.calls[1]!.fail(new Error('object store unavailable'));
  await svc.idle();
});

afterAll(async () => {
  await http.close();
  await svc.stop(1000);
  rmSync(dir, { recursive: true, force: true });
});

describe('service HTTP endpoint', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(http.host).toBe('127.0.0.1');
    expect(http.port).toBeGreaterThan(0);
  });

  it('GET /health reports ok and the last results', async () => {
    const res = await fetch(`${base()}/health`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; tables: { name: string; jobs: Record<string, { lastResult: Record<string, unknown>; consecutiveFailures: number }> }[] };
    expect(body.ok).toBe(true);
    const orders = body.tables.find((t) => t.name === 'orders')!;
    expect(orders.jobs.compact!.lastResult).toMatchObject({ ok: true, bytesWritten: 4096, snapshotIds: ['77'] });
    expect(orders.jobs.expire!.lastResult).toMatchObject({ ok: false, error: 'object store unavailable' });
    expect(orders.jobs.expire!.consecutiveFailures).toBe(1);
  });

  it('GET /metrics serves Prometheus text with runs, failures, bytes and files per table', async () => {
    const res = await fetch(`${base()}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    const lines = text.split('\n');
    for (const sample of [
      'floe_job_runs_total{table="orders",job="compact"} 1',
      'floe_job_runs_total{table="orders",job="expire"} 1',
      'floe_job_failures_total{table="orders",job="compact"} 0',
      'floe_job_failures_total{table="orders",job="expire"} 1',
      'floe_bytes_rewritten_total{table="orders",job="compact"} 4096',
      'floe_data_files_before{table="orders"} 12',
      'floe_data_files_after{table="orders"} 1',
      'floe_job_consecutive_failures{table="orders",job="expire"} 1',
      'floe_job_last_success_timestamp_seconds{table="orders",job="compact"} ' + T0 / 1000,
    ]) {
      expect(lines).toContain(sample);
    }
    expect(lines).toContain('# TYPE floe_job_runs_total counter');
    // every sample line is `name{labels} number`
    for (const l of lines.filter((x) => x && !x.startsWith('#'))) expect(l).toMatch(/^[a-z_]+\{[^}]*\} -?[0-9.e+]+$/);
  });

  it('POST /run/<table>/<job> starts the job now; a second request while it runs gets 409', async () => {
    const before = runner.calls.length;
    const res = await fetch(`${base()}/run/orders/compact`, { method: 'POST' });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'accepted', started: true });
    expect(runner.calls.length).toBe(before + 1);
    expect(runner.calls[before]!.spec.job).toBe('compact');
    const again = await fetch(`${base()}/run/orders/compact`, { method: 'POST' });
    expect(again.status).toBe(409);
    runner.calls[before]!.succeed();
    await svc.idle();
    const metrics = await (await fetch(`${base()}/metrics`)).text();
    expect(metrics.split('\n')).toContain('floe_job_runs_total{table="orders",job="compact"} 2');
  });

  it('answers unknown tables, jobs, methods and paths with 404/405', async () => {
    expect((await fetch(`${base()}/run/nope/compact`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base()}/run/orders/remove-orphans`, { method: 'POST' })).status).toBe(404);
    expect((await fetch(`${base()}/run/orders/compact`)).status).toBe(405);
    expect((await fetch(`${base()}/nothing`)).status).toBe(404);
  });
});
