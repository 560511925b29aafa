import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../../src/shells/service/http.js';
import { FakeClock, FakeRunner, waitFor } from './fakes.js';

const T0 = Date.UTC(2025, 0, 1);
const TOKEN = 'test-token-0123456789abcdef';
const AUTH = { authorization: `Bearer ${TOKEN}` };
let dir: string;
let svc: MaintenanceService;
let http: HttpEndpoint;
const runner = new FakeRunner();
const base = () => `http://127.0.0.1:${http.port}`;

/** node:http directly: fetch() will not send a forged Host header, and keeps `..` segments only raw. */
function raw(
  method: string,
  pathAndQuery: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: http.port, method, path: pathAndQuery, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-service-http-'));
  const config = await parseServiceConfig(
    {
      stateDir: 'state',
      tables: [
        { name: 'orders', location: '/w/orders', jobs: { compact: 'hourly', expire: 'daily' } },
        { name: 'other', location: '/w/other', jobs: { compact: 'hourly' } },
      ],
    },
    'floe.yaml',
    dir,
    { FLOE_API_TOKEN: TOKEN },
  );
  svc = new MaintenanceService(config, { clock: new FakeClock(T0), runJob: runner.run, log: () => {} });
  await svc.init();
  http = await startHttpEndpoint(svc, 0);
  svc.start();
  // the first scheduled runs: orders/compact rewrites 12 files into 1, orders/expire fails, other/compact succeeds
  for (let i = 0; i < 3; i++) {
    await waitFor(() => runner.calls.length > i, `scheduled run ${i + 1}`);
    const c = runner.calls[i]!;
    if (c.spec.table === '/w/orders' && c.spec.job === 'compact')
      c.succeed({ bytesRead: 5000, bytesWritten: 4096, filesBefore: 12, filesAfter: 1, snapshotIds: ['77'] });
    else if (c.spec.job === 'expire') c.fail(new Error('object store unavailable'));
    else c.succeed();
  }
  await svc.idle();
});

afterAll(async () => {
  await http.close();
  await svc.stop(1000);
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('service HTTP endpoint', () => {
  it('listens on 127.0.0.1 only', () => {
    expect(http.host).toBe('127.0.0.1');
    expect(http.port).toBeGreaterThan(0);
  });

  it('GET /health reports ok and the last results', async () => {
    const res = await fetch(`${base()}/health`, { headers: AUTH });
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      ok: boolean;
      tables: {
        name: string;
        jobs: Record<string, { lastResult: Record<string, unknown>; consecutiveFailures: number }>;
      }[];
    };
    expect(body.ok).toBe(true);
    const orders = body.tables.find((t) => t.name === 'orders')!;
    expect(orders.jobs.compact!.lastResult).toMatchObject({ ok: true, bytesWritten: 4096, snapshotIds: ['77'] });
    expect(orders.jobs.expire!.lastResult).toMatchObject({ ok: false, error: 'object store unavailable' });
    expect(orders.jobs.expire!.consecutiveFailures).toBe(1);
  });

  it('GET /metrics serves Prometheus text: counters, per-table gauges, a duration histogram', async () => {
    const res = await fetch(`${base()}/metrics`, { headers: AUTH });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const lines = (await res.text()).split('\n');
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
      // the fake job took 5 ms: it lands in every bucket from 1 s up
      'floe_job_duration_seconds_bucket{table="orders",job="compact",le="1"} 1',
      'floe_job_duration_seconds_bucket{table="orders",job="compact",le="+Inf"} 1',
      'floe_job_duration_seconds_count{table="orders",job="compact"} 1',
      'floe_job_duration_seconds_sum{table="orders",job="compact"} 0.005',
      'floe_table_paused{table="orders"} 0',
      'floe_job_running{table="orders",job="compact"} 0',
    ]) {
      expect(lines).toContain(sample);
    }
    expect(lines).toContain('# TYPE floe_job_runs_total counter');
    expect(lines).toContain('# TYPE floe_job_duration_seconds histogram');
    // every sample line is `name{labels} number`, every counter ends in _total
    for (const l of lines.filter((x) => x && !x.startsWith('#'))) expect(l).toMatch(/^[a-z_]+\{[^}]*\} -?[0-9.e+]+$/);
    for (const l of lines.filter((x) => x.startsWith('# TYPE') && x.endsWith(' counter')))
      expect(l).toMatch(/_total counter$/);
  });

  it('POST /run/<table>/<job> starts the job now; a second request while it runs gets 409 with the reason', async () => {
    const before = runner.calls.length;
    const res = await fetch(`${base()}/run/orders/compact`, { method: 'POST', headers: AUTH });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'accepted', started: true, dryRun: false });
    expect(runner.calls.length).toBe(before + 1);
    expect(runner.calls[before]!.spec).toMatchObject({ job: 'compact', dryRun: false });
    const again = await fetch(`${base()}/run/orders/compact`, { method: 'POST', headers: AUTH });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({
      status: 'running',
      started: false,
      reason: expect.stringMatching(/already running since/),
    });
    // another job of the same table is accepted but waits: 202 with started:false says why
    const queued = await fetch(`${base()}/api/tables/orders/run/expire`, { method: 'POST', headers: AUTH });
    expect(queued.status).toBe(202);
    expect(await queued.json()).toEqual({
      status: 'accepted',
      started: false,
      dryRun: false,
      reason: "queued: compact of orders is running (a table's jobs never overlap)",
    });
    const twice = await fetch(`${base()}/api/tables/orders/run/expire`, { method: 'POST', headers: AUTH });
    expect(twice.status).toBe(409);
    expect(await twice.json()).toMatchObject({
      status: 'queued',
      started: false,
      reason: 'expire of orders is already queued',
    });
    runner.calls[before]!.succeed();
    await waitFor(() => runner.calls.length === before + 2, 'the queued expire');
    runner.calls[before + 1]!.succeed();
    await svc.idle();
    const metrics = await (await fetch(`${base()}/metrics`, { headers: AUTH })).text();
    expect(metrics.split('\n')).toContain('floe_job_runs_total{table="orders",job="compact"} 2');
  });

  it('POST /run/<table>/compact?dryRun=true runs a dry run, which leaves the schedule state alone (13.4)', async () => {
    const before = runner.calls.length;
    const lastSuccess = svc.stateOf('other')!.jobs.compact!.lastSuccessStartMs;
    const res = await fetch(`${base()}/run/other/compact?dryRun=true`, { method: 'POST', headers: AUTH });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ status: 'accepted', started: true, dryRun: true });
    expect(runner.calls[before]!.spec).toMatchObject({ table: '/w/other', job: 'compact', dryRun: true });
    runner.calls[before]!.succeed({ dryRun: true });
    await svc.idle();
    expect(svc.stateOf('other')!.jobs.compact!.lastSuccessStartMs).toBe(lastSuccess);
    const runs = (await (await fetch(`${base()}/api/tables/other/runs`, { headers: AUTH })).json()) as {
      runs: { dryRun: boolean; reason: string }[];
    };
    expect(runs.runs[0]).toMatchObject({ dryRun: true, reason: 'manual' });
  });

  it('refuses unknown query parameters and bad values with 400, and starts nothing', async () => {
    const before = runner.calls.length;
    for (const q of ['dryrun=true', 'dryRun=yes', 'dryRun=true&force=1', 'x']) {
      const res = await fetch(`${base()}/run/other/compact?${q}`, { method: 'POST', headers: AUTH });
      expect(res.status, q).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(
        /unknown query parameter|dryRun must be true or false/,
      );
    }
    expect((await fetch(`${base()}/api/tables/other/runs?limit=0`, { headers: AUTH })).status).toBe(400);
    expect((await fetch(`${base()}/api/tables?sort=health`, { headers: AUTH })).status).toBe(400);
    expect(runner.calls.length).toBe(before);
  });

  it('answers unknown tables, jobs, methods and paths with 404/405 and the reason', async () => {
    const nope = await fetch(`${base()}/run/nope/compact`, { method: 'POST', headers: AUTH });
    expect(nope.status).toBe(404);
    expect(await nope.json()).toMatchObject({
      status: 'unknown-table',
      started: false,
      reason: 'no table named "nope" is under management',
    });
    const job = await fetch(`${base()}/run/orders/remove-orphans`, { method: 'POST', headers: AUTH });
    expect(job.status).toBe(404);
    expect(await job.json()).toMatchObject({
      status: 'unknown-job',
      started: false,
      reason: expect.stringMatching(/has no remove-orphans job/),
    });
    expect((await fetch(`${base()}/run/orders/compact`, { headers: AUTH })).status).toBe(405);
    expect((await fetch(`${base()}/nothing`, { headers: AUTH })).status).toBe(404);
    expect((await fetch(`${base()}/api/tables/nope/runs`, { headers: AUTH })).status).toBe(404);
  });

  it('pause and resume: a paused table is skipped by the scheduler and refuses real runs', async () => {
    const p = await fetch(`${base()}/api/tables/other/pause`, { method: 'POST', headers: AUTH });
    expect(p.status).toBe(200);
    expect(await p.json()).toEqual({ table: 'other', paused: true });
    const list = (await (await fetch(`${base()}/health`, { headers: AUTH })).json()) as {
      tables: { name: string; paused: boolean }[];
    };
    expect(list.tables.find((t) => t.name === 'other')!.paused).toBe(true);
    const refused = await fetch(`${base()}/api/tables/other/run/compact`, { method: 'POST', headers: AUTH });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ status: 'paused', started: false });
    expect((await (await fetch(`${base()}/metrics`, { headers: AUTH })).text()).split('\n')).toContain(
      'floe_table_paused{table="other"} 1',
    );
    // persisted in the database
    expect((await svc.db!.tableRows()).find((r) => r.name === 'other')!.paused).toBe(true);
    const r = await fetch(`${base()}/api/tables/other/resume`, { method: 'POST', headers: AUTH });
    expect(await r.json()).toEqual({ table: 'other', paused: false });
    expect((await svc.db!.tableRows()).find((x) => x.name === 'other')!.paused).toBe(false);
  });
});

describe('authentication (9.7, issue 16)', () => {
  const MUTATING = [
    '/run/orders/compact',
    '/run/orders/compact?dryRun=true',
    '/api/tables/orders/run/compact',
    '/api/tables/orders/run/compact?dryRun=true',
    '/api/tables/orders/pause',
    '/api/tables/orders/resume',
  ];
  const READS = [
    '/',
    '/tables/orders',
    '/health',
    '/metrics',
    '/api/tables',
    '/api/tables/orders',
    '/api/tables/orders/runs',
  ];

  it('every mutating endpoint answers 401 without the token, or with a wrong one, and starts nothing', async () => {
    const before = runner.calls.length;
    for (const p of MUTATING) {
      const variants: Record<string, string>[] = [
        {},
        { authorization: 'Bearer wrong-token-0123456789' },
        { authorization: TOKEN },
        { authorization: `Basic ${Buffer.from(`u:${TOKEN}`).toString('base64')}` },
      ];
      for (const headers of variants) {
        const res = await fetch(`${base()}${p}`, { method: 'POST', headers });
        expect(res.status, `${p} ${JSON.stringify(headers)}`).toBe(401);
      }
    }
    expect(runner.calls.length).toBe(before);
    expect(svc.isPaused('orders')).toBe(false);
  });

  it('reads need the token too (the dashboard answers with its sign-in page)', async () => {
    for (const p of READS) {
      const res = await fetch(`${base()}${p}`);
      expect(res.status, p).toBe(401);
      const text = await res.text();
      if (p === '/' || p.startsWith('/tables/')) expect(text).toContain('<form method="post" action="/login">');
      else expect(text).not.toContain('orders'); // nothing about the tables leaks
    }
  });

  it('foreign Host or Origin is refused with 403 on every endpoint, even with the token', async () => {
    for (const p of [...READS, ...MUTATING]) {
      const method = MUTATING.includes(p) ? 'POST' : 'GET';
      const foreign: Record<string, string>[] = [
        { host: 'evil.example:80' },
        { host: `attacker.test:${http.port}` },
        { origin: 'http://evil.example' },
        { origin: 'null' },
        { origin: `http://127.0.0.1.evil.example:${http.port}` },
      ];
      for (const headers of foreign) {
        const res = await raw(method, p, { ...AUTH, ...headers });
        expect(res.status, `${method} ${p} ${JSON.stringify(headers)}`).toBe(403);
      }
    }
    // the server's own names pass
    expect(
      (
        await raw('GET', '/health', {
          ...AUTH,
          host: `localhost:${http.port}`,
          origin: `http://localhost:${http.port}`,
        })
      ).status,
    ).toBe(200);
    expect((await raw('GET', '/health', { ...AUTH, origin: `http://127.0.0.1:${http.port}` })).status).toBe(200);
  });

  it('table names in paths cannot escape: traversal attempts are 404', async () => {
    for (const p of [
      '/api/tables/..%2F..%2Fetc%2Fpasswd',
      '/api/tables/../tables/orders',
      '/api/tables/%2e%2e/runs',
      '/api/tables/orders%2F..%2Fother',
      '/api/tables/orders%2Fruns',
      '/api/tables/%2Fetc%2Fpasswd/runs',
      '/api/tables/..',
      '/api/tables/orders%00/runs',
      '/api/tables/%E0%A4%A',
      '/tables/..%2F..%2Fstate%2Ffloe-state.db',
      '/api/tables/orders\\..\\other',
    ]) {
      const res = await raw('GET', p, AUTH);
      expect(res.status, p).toBe(404);
    }
    for (const p of [
      '/run/..%2Forders/compact',
      '/api/tables/..%2Fother/pause',
      '/api/tables/orders/run/..%2Fcompact',
    ]) {
      expect((await raw('POST', p, AUTH)).status, p).toBe(404);
    }
    expect(svc.isPaused('other')).toBe(false);
  });

  it('the dashboard login exchanges the token for an HttpOnly SameSite=Strict cookie; a cookie POST needs an Origin', async () => {
    const bad = await fetch(`${base()}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: 'wrong' }),
      redirect: 'manual',
    });
    expect(bad.status).toBe(401);
    const ok = await fetch(`${base()}/login`, {
      method: 'POST',
      body: new URLSearchParams({ token: TOKEN }),
      redirect: 'manual',
    });
    expect(ok.status).toBe(303);
    const cookie = ok.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^floe_session=[0-9a-f]{64}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect(cookie).not.toContain(TOKEN);
    const session = cookie.split(';')[0]!;
    expect((await fetch(`${base()}/api/tables`, { headers: { cookie: session } })).status).toBe(200);
    // no Origin: refused (a browser always sends one on POST)
    expect((await raw('POST', '/api/tables/orders/pause', { cookie: session })).status).toBe(403);
    const paused = await raw('POST', '/api/tables/orders/pause', {
      cookie: session,
      origin: `http://127.0.0.1:${http.port}`,
    });
    expect(paused.status).toBe(200);
    await fetch(`${base()}/api/tables/orders/resume`, { method: 'POST', headers: AUTH });
  });
});

describe('authentication settings', () => {
  it('publicReads lets GETs through without the token, never POSTs; without any token configured POSTs are 401', async () => {
    const d = mkdtempSync(path.join(tmpdir(), 'floe-service-http-open-'));
    const config = await parseServiceConfig(
      {
        stateDir: 'state',
        http: { publicReads: true },
        tables: [{ name: 't', location: '/w/t', jobs: { compact: 'hourly' } }],
      },
      'floe.yaml',
      d,
      {},
    );
    const r2 = new FakeRunner();
    const s2 = new MaintenanceService(config, { clock: new FakeClock(T0), runJob: r2.run, log: () => {} });
    await s2.init();
    const h2 = await startHttpEndpoint(s2, 0);
    try {
      expect((await fetch(`http://127.0.0.1:${h2.port}/health`)).status).toBe(200);
      const post = await fetch(`http://127.0.0.1:${h2.port}/run/t/compact`, { method: 'POST' });
      expect(post.status).toBe(401);
      expect(((await post.json()) as { error: string }).error).toMatch(/no API token is configured/);
      expect(r2.calls.length).toBe(0);
    } finally {
      await h2.close();
      await s2.close();
      rmSync(d, { recursive: true, force: true });
    }
  });
});
