/**
 * The dashboard in a real browser: Debian's chromium (scripts/setup-chromium.sh) driven by playwright-core
 * against `floe serve` on a discovered warehouse (floe-written Iceberg, a Java-Paimon table, an Iceberg
 * table in a SQL catalog). It signs in with the token, sorts the table list, opens a table page, checks
 * the charts, plan and history, clicks "Dry-run compaction" and "Pause", and saves screenshots under
 * .cache/screenshots (test artifacts, gitignored). Without chromium the test fails and says how to get it.
 * The service runs under a budget, so the pages also show why each job runs or waits and what the runs
 * cost and saved; the API answers are checked against schema/floe-service-api.schema.json.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../oracles/index.js';
import { api, buildWarehouse, startServe, until, type ServeProcess } from './support.js';

const TOKEN = 'dashboard-token-5e1f0c2b9a77';
const CHROMIUM = process.env.FLOE_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = path.join(repoRoot, '.cache/screenshots');
let work: string;
let serve: ServeProcess | undefined;
let context: BrowserContext | undefined;
let page: Page;
const base = () => `http://127.0.0.1:${serve!.port}`;

beforeAll(async () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no chromium at ${CHROMIUM}: run \`bash scripts/setup-chromium.sh\` (apt-get install chromium) or set FLOE_CHROMIUM`,
    );
  mkdirSync(SHOTS, { recursive: true });
  work = mkdtempSync(path.join(tmpdir(), 'floe-dashboard-'));
  await buildWarehouse(work);
  const config = path.join(work, 'floe.yaml');
  writeFileSync(
    config,
    [
      'state: state/floe.db',
      'concurrency: 2',
      'budget: { per: day, bytes: 10GiB, money: 5, prices: { currency: USD, perGB: 0.02, perVcpuHour: 0.05 } }',
      'defaults:',
      '  jobs:',
      '    compact: every 1h',
      '    expire: { schedule: "0 3 * * *", olderThan: 7d, retainLast: 5 }',
      'catalogs:',
      '  - name: wh',
      '    warehouse: ./warehouse',
      '  - name: lake',
      '    catalog: sql:catalog.db',
    ].join('\n'),
  );
  serve = await startServe(config, { FLOE_API_TOKEN: TOKEN });
  // the first scheduled compactions, so there is history to show; under the budget a table whose plan finds
  // nothing to do is not run at all (below trigger: the Paimon table's levels need no compaction yet)
  await until('first compactions', async () => {
    const t = (
      await api<{ tables: { jobs: { compact: { lastSuccessAt: string | null; why: { code: string } | null } } }[] }>(
        serve!.port,
        TOKEN,
        'GET',
        '/api/tables',
      )
    ).body.tables;
    return t.length === 3 &&
      t.every((x) => x.jobs.compact.lastSuccessAt || x.jobs.compact.why?.code === 'below-trigger') &&
      t.filter((x) => x.jobs.compact.lastSuccessAt).length === 2
      ? true
      : undefined;
  });
  // a fresh profile (--user-data-dir) per run: playwright passes it for a persistent context
  context = await chromium.launchPersistentContext(path.join(work, 'chromium-profile'), {
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1360, height: 900 },
    deviceScaleFactor: 1,
  });
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  await serve?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('dashboard in chromium', () => {
  it('asks for the token, then lists the tables sorted by health; headers sort', async () => {
    await page.goto(`${base()}/`);
    expect(await page.locator('h1').textContent()).toBe('Sign in');
    await page.fill('input[name=token]', 'wrong-token-000000000');
    await page.click('button[type=submit]');
    expect(await page.locator('.error').textContent()).toContain('not right');
    await page.fill('input[name=token]', TOKEN);
    await page.click('button[type=submit]');
    await page.waitForSelector('table#tables');
    expect(await page.locator('h1').textContent()).toBe('Tables');
    const names = await page.locator('table#tables tbody tr a.table-link').allTextContents();
    expect(names.sort()).toEqual(['lake.sales.events', 'wh.db.orders', 'wh.pm.mor']);
    // worst health first
    const scores = await page
      .locator('table#tables tbody tr td:first-child')
      .evaluateAll((tds) => tds.map((td) => Number(td.getAttribute('data-v'))));
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-tables.png'), fullPage: true });
    // sort by name, then back
    await page.click('table#tables th:has-text("Table")');
    const byName = await page.locator('table#tables tbody tr a.table-link').allTextContents();
    expect(byName).toEqual(['lake.sales.events', 'wh.db.orders', 'wh.pm.mor']);
    await page.click('table#tables th:has-text("Table")');
    expect(await page.locator('table#tables tbody tr a.table-link').allTextContents()).toEqual([
      'wh.pm.mor',
      'wh.db.orders',
      'lake.sales.events',
    ]);
  });

  it('a table page shows health, the file-size histograms, files over time, the plans and run history', async () => {
    await page.click('a.table-link:has-text("wh.db.orders")');
    await page.waitForSelector('#table-name');
    expect(await page.locator('#table-name').textContent()).toBe('wh.db.orders');
    // after the first compaction: 2 files (one per partition), no delete files
    expect(await page.locator('#data-files').textContent()).toBe('2');
    expect(await page.locator('#delete-files').textContent()).toBe('0');
    expect(await page.locator('svg.chart').count()).toBeGreaterThanOrEqual(4); // table histogram, history, 2 partitions
    expect(await page.locator('.hist-grid .cell').count()).toBe(2);
    expect(
      await page.locator('svg[aria-label="Data and delete files, from compaction runs"] circle').count(),
    ).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.plan h2').allTextContents()).toEqual(['Pending plan', 'Last plan']);
    expect(await page.locator('.plan .trail li').count()).toBeGreaterThan(0);
    const history = page.locator('table#runs tbody tr');
    expect(await history.count()).toBeGreaterThanOrEqual(1);
    expect(await history.first().getAttribute('data-outcome')).toBe('ok');
    expect(await page.locator('table#runs tbody tr').first().textContent()).toContain('20 → 2');
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-table-orders.png'), fullPage: true });
  });

  it('the buttons start a dry run and pause the table', async () => {
    await page.click('#btn-dry-run');
    await page.waitForSelector('#action-status:has-text("HTTP 202")');
    expect(await page.locator('#action-status').textContent()).toMatch(/HTTP 202: (Started|Accepted).*\(dry run\)/);
    await page.waitForLoadState('load');
    await until('the dry run in the history table', async () => {
      await page.reload();
      return (await page.locator('table#runs tbody tr .badge:has-text("dry run")').count()) > 0 ? true : undefined;
    });
    await page.click('#btn-pause');
    await page.waitForSelector('#action-status:has-text("HTTP 200: Paused")');
    await page.waitForSelector('#btn-resume');
    expect(await page.locator('.badge:has-text("paused")').count()).toBeGreaterThan(0);
    const listed = (
      await api<{ tables: { name: string; paused: boolean }[] }>(serve!.port, TOKEN, 'GET', '/api/tables')
    ).body.tables;
    expect(listed.find((t) => t.name === 'wh.db.orders')!.paused).toBe(true);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-table-orders-paused.png'), fullPage: true });
  });

  it('says why each job runs or waits, and what the runs cost and saved; the API matches its schema', async () => {
    await page.goto(`${base()}/`);
    const codes = await page
      .locator('table#tables tbody td.why')
      .evaluateAll((tds) => tds.map((td) => td.getAttribute('data-v')));
    // wh.db.orders paused above; lake.sales.events compacted, next in an hour; the Paimon table below trigger
    expect([...codes].sort()).toEqual(['below-trigger', 'not-due', 'paused']);
    await page.goto(`${base()}/tables/wh.db.orders`);
    expect(await page.locator('#why-compact').textContent()).toMatch(/paused: no scheduled or retried runs/);
    expect(await page.locator('#why-expire').textContent()).toMatch(/paused/);
    const card = page.locator('#value-card');
    expect(await card.locator('svg.chart').count()).toBe(2);
    expect(
      await card.locator('svg[aria-label="Full-scan file opens each compaction saved"] circle').count(),
    ).toBeGreaterThanOrEqual(1);
    expect(await page.locator('#budget-line').textContent()).toMatch(
      /^Service budget this day: .* spent of 10\.0 GiB, 5 USD\.$/,
    );
    // today's totals: the scheduled compaction (20 → 2 files) saved 18 file opens
    const today = page.locator('table#value-days tbody tr').first();
    expect(await today.locator('td').first().textContent()).toBe(new Date().toISOString().slice(0, 10));
    expect(Number(await today.locator('td').nth(5).textContent())).toBeGreaterThanOrEqual(18);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-table-orders-value.png'), fullPage: true });

    const schema = JSON.parse(
      readFileSync(path.join(repoRoot, 'schema/floe-service-api.schema.json'), 'utf8'),
    ) as object;
    const validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
    const tables = (await api(serve!.port, TOKEN, 'GET', '/api/tables')).body;
    const budget = (
      await api<{ budget: { spent: { bytes: number; money: number } } }>(serve!.port, TOKEN, 'GET', '/api/budget')
    ).body;
    const value = (
      await api<{ perDay: { fileOpensSaved: number }[] }>(serve!.port, TOKEN, 'GET', '/api/tables/wh.db.orders/value')
    ).body;
    for (const doc of [tables, budget, value]) expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    expect(budget.budget.spent.bytes).toBeGreaterThan(0);
    expect(budget.budget.spent.money).toBeGreaterThan(0);
    expect(value.perDay.at(-1)!.fileOpensSaved).toBeGreaterThanOrEqual(18);
    const metrics = await fetch(`${base()}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } }).then((r) =>
      r.text(),
    );
    expect(metrics).toMatch(/^floe_spend_bytes_total\{table="wh\.db\.orders"\} [1-9]/m);
    expect(metrics).toMatch(/^floe_savings_file_opens_total\{table="wh\.db\.orders"\} (1[89]|[2-9]\d)/m);
    expect(metrics).toContain('floe_job_waiting{table="wh.db.orders",job="compact",reason="paused"} 1');
  });

  it('shows the Paimon table too', async () => {
    await page.goto(`${base()}/tables/wh.pm.mor`);
    expect(await page.locator('#table-name').textContent()).toBe('wh.pm.mor');
    expect(await page.locator('.badge:has-text("paimon")').count()).toBe(1);
    expect(Number(await page.locator('#data-files').textContent())).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-table-paimon.png'), fullPage: true });
  });
});
