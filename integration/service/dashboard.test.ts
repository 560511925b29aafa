/**
 * The dashboard in a real browser: Debian's chromium (scripts/setup-chromium.sh) driven by playwright-core
 * against `floe serve` on a discovered warehouse (floe-written Iceberg, a Java-Paimon table, an Iceberg
 * table in a SQL catalog). It signs in with the token, sorts the table list, opens a table page, checks
 * the charts, plan and history, clicks "Dry-run compaction" and "Pause", and saves screenshots under
 * .cache/screenshots (test artifacts, gitignored). Without chromium the test fails and says how to get it.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
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
  // the first scheduled compactions, so there is history to show
  await until('first compactions', async () => {
    const t = (
      await api<{ tables: { jobs: { compact: { lastSuccessAt: string | null } } }[] }>(
        serve!.port,
        TOKEN,
        'GET',
        '/api/tables',
      )
    ).body.tables;
    return t.length === 3 && t.every((x) => x.jobs.compact.lastSuccessAt) ? true : undefined;
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

  it('shows the Paimon table too', async () => {
    await page.goto(`${base()}/tables/wh.pm.mor`);
    expect(await page.locator('#table-name').textContent()).toBe('wh.pm.mor');
    expect(await page.locator('.badge:has-text("paimon")').count()).toBe(1);
    expect(Number(await page.locator('#data-files').textContent())).toBeGreaterThan(0);
    await page.screenshot({ path: path.join(SHOTS, 'dashboard-table-paimon.png'), fullPage: true });
  });
});
