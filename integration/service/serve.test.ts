/**
 * `floe serve` end to end, as a child process: its config lists no table by hand; discovery finds a
 * filesystem warehouse (a floe-written Iceberg table, a Java-Paimon primary-key table, and an Iceberg
 * table that opted out with `self-optimizing.enabled=false`) and an Iceberg SQL catalog (SQLite). The
 * scheduler runs compactions on its own; the test reads run history over the API and from the state
 * database, checks every table still holds exactly its rows, pauses a table and shows the scheduler skips
 * it while the others keep running, then resumes it.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  api,
  buildWarehouse,
  icebergRows,
  paimonRows,
  startServe,
  until,
  type ServeProcess,
  type Warehouse,
} from './support.js';

const TOKEN = 'integration-token-7f3c9a1b2d4e';
let work: string;
let wh: Warehouse;
let serve: ServeProcess | undefined;
let paimonBefore: string[];

interface ListEntry {
  name: string;
  source: string;
  format?: string;
  paused: boolean;
  running: unknown;
  jobs: Record<string, { lastSuccessAt: string | null; consecutiveFailures: number; lastError: string | null }>;
  health: { score: number; dataFiles: number } | null;
}
interface Run {
  id: number;
  job: string;
  outcome: string;
  reason: string;
  dryRun: boolean;
  filesBefore?: number;
  filesAfter?: number;
  error?: string;
  plan?: { planner: string; tasks: number; trail: unknown[] };
}

const list = async () => (await api<{ tables: ListEntry[] }>(serve!.port, TOKEN, 'GET', '/api/tables')).body.tables;
const runsOf = async (name: string) =>
  (await api<{ runs: Run[] }>(serve!.port, TOKEN, 'GET', `/api/tables/${encodeURIComponent(name)}/runs?limit=1000`))
    .body.runs;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'floe-serve-it-'));
  wh = await buildWarehouse(work);
  paimonBefore = await paimonRows(wh.paimon);
  const config = path.join(work, 'floe.yaml');
  writeFileSync(
    config,
    [
      'state: state/floe.db',
      'concurrency: 2',
      'discovery: { interval: 1h }',
      'defaults:',
      '  jobs:',
      '    compact: every 2s',
      'catalogs:',
      '  - name: wh',
      '    warehouse: ./warehouse',
      '  - name: lake',
      '    catalog: sql:catalog.db',
      '    include: ["sales.*"]',
    ].join('\n'),
  );
  serve = await startServe(config, { FLOE_API_TOKEN: TOKEN });
});

afterAll(async () => {
  const code = await serve?.stop();
  if (code !== 0 && serve) console.error(serve.stderr().slice(-3000));
  rmSync(work, { recursive: true, force: true });
});

describe('floe serve on a discovered warehouse and SQL catalog', () => {
  it('discovers 3 tables (Iceberg + Paimon, filesystem + SQL catalog) and leaves the opted-out one alone', async () => {
    const tables = await list();
    expect(tables.map((t) => [t.name, t.source, t.format]).sort()).toEqual([
      ['lake.sales.events', 'lake', 'iceberg'],
      ['wh.db.orders', 'wh', 'iceberg'],
      ['wh.pm.mor', 'wh', 'paimon'],
    ]);
  });

  it('runs scheduled compactions; history is on the API and in the database; rows are unchanged', async () => {
    const names = ['lake.sales.events', 'wh.db.orders', 'wh.pm.mor'];
    await until('a successful scheduled compaction of every table', async () => {
      const t = await list();
      const failing = t.find((x) => x.jobs.compact!.lastError);
      if (failing) throw new Error(`${failing.name}: ${failing.jobs.compact!.lastError}`);
      return names.every((n) => t.find((x) => x.name === n)?.jobs.compact!.lastSuccessAt) ? t : undefined;
    });
    for (const n of names) {
      const runs = await runsOf(n);
      const first = runs[runs.length - 1]!;
      expect(first, n).toMatchObject({ job: 'compact', reason: 'scheduled', outcome: 'ok', dryRun: false });
      expect(first.plan?.trail.length, n).toBeGreaterThan(0);
    }
    // the Iceberg tables had one small file per append (and partition): the first run merged them
    const orders = (await runsOf('wh.db.orders')).at(-1)!;
    expect(orders.filesBefore).toBe(20);
    expect(orders.filesAfter).toBe(2);
    const events = (await runsOf('lake.sales.events')).at(-1)!;
    expect([events.filesBefore, events.filesAfter]).toEqual([10, 1]);

    // the same history, straight from the state database (SQLite, WAL: readable while the service writes)
    const db = new Database(path.join(work, 'state/floe.db'), { readonly: true });
    try {
      const rows = db
        .prepare(
          `SELECT table_name, outcome, files_before, files_after FROM floe_runs WHERE job = 'compact' AND id IN (SELECT MIN(id) FROM floe_runs GROUP BY table_name) ORDER BY table_name`,
        )
        .all();
      expect(rows).toEqual([
        { table_name: 'lake.sales.events', outcome: 'ok', files_before: 10, files_after: 1 },
        { table_name: 'wh.db.orders', outcome: 'ok', files_before: 20, files_after: 2 },
        expect.objectContaining({ table_name: 'wh.pm.mor', outcome: 'ok' }),
      ]);
      const managed = db.prepare('SELECT name, status, status_reason FROM floe_tables ORDER BY name').all();
      expect(managed).toEqual([
        { name: 'lake.sales.events', status: 'active', status_reason: null },
        { name: 'wh.db.frozen', status: 'opted-out', status_reason: 'table property self-optimizing.enabled=false' },
        { name: 'wh.db.orders', status: 'active', status_reason: null },
        { name: 'wh.pm.mor', status: 'active', status_reason: null },
      ]);
      const version = db.prepare('SELECT MAX(version) AS v FROM floe_schema_version').get() as { v: number };
      expect(version.v).toBeGreaterThanOrEqual(1);
    } finally {
      db.close();
    }

    // correctness: every table holds exactly the rows it held before
    expect(await icebergRows(wh.orders)).toEqual(wh.expected.orders);
    expect(await icebergRows('sales.events', `sql:${wh.catalogFile}`)).toEqual(wh.expected.events);
    const paimonAfter = await paimonRows(wh.paimon);
    expect(paimonAfter).toHaveLength(11); // the fixture's documented live rows
    expect(paimonAfter).toEqual(paimonBefore);
  });

  it('a paused table is skipped by the scheduler while the others keep running; resume brings it back', async () => {
    const paused = await api<{ paused: boolean }>(serve!.port, TOKEN, 'POST', '/api/tables/wh.db.orders/pause');
    expect(paused).toEqual({ status: 200, body: { table: 'wh.db.orders', paused: true } });
    // a run that was already going may still finish: count from when it is idle
    await until('orders idle', async () =>
      (await list()).find((t) => t.name === 'wh.db.orders')!.running ? undefined : true,
    );
    const ordersRuns = (await runsOf('wh.db.orders')).length;
    const eventsRuns = (await runsOf('lake.sales.events')).length;
    // three more scheduled runs of another table: the scheduler went round at least three times
    await until('three more runs of lake.sales.events', async () =>
      (await runsOf('lake.sales.events')).length >= eventsRuns + 3 ? true : undefined,
    );
    expect((await runsOf('wh.db.orders')).length).toBe(ordersRuns);
    const listed = (await list()).find((t) => t.name === 'wh.db.orders')!;
    expect(listed.paused).toBe(true);
    const metrics = (await api<string>(serve!.port, TOKEN, 'GET', '/metrics')).body;
    expect(metrics.split('\n')).toContain('floe_table_paused{table="wh.db.orders"} 1');
    expect(metrics).toMatch(/^floe_table_health_score\{table="wh\.pm\.mor"\} [0-9.]+$/m);
    expect(metrics).toMatch(/^floe_job_duration_seconds_count\{table="lake\.sales\.events",job="compact"\} [1-9]\d*$/m);
    // real runs are refused while paused; a dry run is allowed and leaves a dry-run history row
    expect((await api(serve!.port, TOKEN, 'POST', '/api/tables/wh.db.orders/run/compact')).status).toBe(409);
    const dry = await api<{ started: boolean; dryRun: boolean }>(
      serve!.port,
      TOKEN,
      'POST',
      '/api/tables/wh.db.orders/run/compact?dryRun=true',
    );
    expect(dry.status).toBe(202);
    expect(dry.body.dryRun).toBe(true);
    await until('the dry run in history', async () => ((await runsOf('wh.db.orders'))[0]?.dryRun ? true : undefined));
    expect((await runsOf('wh.db.orders')).filter((r) => !r.dryRun)).toHaveLength(ordersRuns);

    await api(serve!.port, TOKEN, 'POST', '/api/tables/wh.db.orders/resume');
    await until('a scheduled run of orders after resume', async () => {
      const r = await runsOf('wh.db.orders');
      return r.filter((x) => !x.dryRun && x.reason === 'scheduled').length > ordersRuns ? true : undefined;
    });
    expect(await icebergRows(wh.orders)).toEqual(wh.expected.orders);
  });

  it('stops cleanly on SIGTERM', async () => {
    const code = await serve!.stop();
    expect(code).toBe(0);
    const events = serve!.lines.map((l) => l.event);
    expect(events).toContain('service-stop');
    expect(events).not.toContain('job-failed');
    serve = undefined;
  });
});
