/**
 * The dashboard's HTML and the HTTP guard without a server: values from tables and errors are escaped,
 * charts are well-formed SVG, history becomes before/after points, and the Host/Origin rules honour
 * `http.host` and `http.allowedHosts`.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { historySeries, renderTableListPage, renderTablePage } from '../../../src/shells/service/dashboard.js';
import { barChart, lineChart } from '../../../src/shells/service/svg-charts.js';
import { HttpGuard } from '../../../src/shells/service/http-auth.js';
import type { TableListEntry } from '../../../src/shells/service/api.js';
import type { RunRecord } from '../../../src/shells/service/state-db.js';

const entry = (over: Partial<TableListEntry> = {}): TableListEntry => ({
  name: 'db.orders',
  location: 's3://b/<script>alert(1)</script>',
  source: 'config',
  paused: false,
  running: null,
  jobs: {
    compact: {
      schedule: 'hourly',
      nextDueAt: '2025-01-01T01:00:00.000Z',
      consecutiveFailures: 2,
      lastSuccessAt: null,
      lastOk: false,
      lastError: 'bad <img src=x onerror=alert(1)>',
    },
  },
  health: {
    score: 42.5,
    dataFiles: 10,
    dataBytes: 1000,
    records: 5,
    deleteFiles: 1,
    deleteBytes: 10,
    smallFiles: 9,
    readAtMs: 0,
  },
  ...over,
});

const run = (over: Partial<RunRecord>): RunRecord => ({
  table: 'db.orders',
  job: 'compact',
  reason: 'scheduled',
  dryRun: false,
  startedAtMs: 0,
  finishedAtMs: 1000,
  durationMs: 1000,
  outcome: 'ok',
  snapshotIds: [],
  ...over,
});

describe('dashboard HTML', () => {
  it('escapes everything that comes from tables, configs and errors', () => {
    const list = renderTableListPage([entry()], { status: 'serving', startedAt: '2025-01-01T00:00:00.000Z' });
    expect(list).not.toContain('<script>alert');
    expect(list).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(list).not.toContain('<img src=x');
    expect(list).toContain('compact failing ×2');
    const page = renderTablePage(entry(), { error: 'cannot read <b>x</b>' }, [
      run({ outcome: 'failed', error: '<svg onload=alert(1)>' }),
    ]);
    expect(page).toContain('cannot read &lt;b&gt;x&lt;/b&gt;');
    expect(page).not.toContain('<svg onload');
    // only our own script tag is on the page
    expect(page.match(/<script>/g)).toHaveLength(1);
  });

  it('the table list is sorted by health, worst first; a table without health sorts last', () => {
    const html = renderTableListPage(
      [
        entry({ name: 'good', health: { ...entry().health!, score: 99 } }),
        entry({ name: 'none', health: null }),
        entry({ name: 'bad', health: { ...entry().health!, score: 10 } }),
      ],
      { status: 'serving', startedAt: '' },
    );
    const order = [...html.matchAll(/class="table-link" href="\/tables\/([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(['bad', 'good', 'none']);
  });

  it('history becomes before/after points of committed compactions only', () => {
    const s = historySeries([
      run({
        startedAtMs: 3000,
        finishedAtMs: 4000,
        filesBefore: 5,
        filesAfter: 2,
        deleteFilesBefore: 3,
        deleteFilesAfter: 0,
      }),
      run({ startedAtMs: 1000, finishedAtMs: 2000, filesBefore: 9, filesAfter: 5 }),
      run({ startedAtMs: 5000, dryRun: true, filesBefore: 2 }),
      run({ job: 'expire', startedAtMs: 6000 }),
    ]);
    expect(s[0]!.points).toEqual([
      { x: 1000, y: 9 },
      { x: 2000, y: 5 },
      { x: 3000, y: 5 },
      { x: 4000, y: 2 },
    ]);
    expect(s[1]!.points).toEqual([
      { x: 3000, y: 3 },
      { x: 4000, y: 0 },
    ]);
  });

  it('charts are SVG with one bar per bucket and a point per value; an empty chart says so', () => {
    const bars = barChart([3, 0, 7], ['a', 'b', '<c>'], { title: 't' });
    expect(bars.match(/<rect /g)).toHaveLength(3);
    expect(bars).toContain('&lt;c&gt;');
    const lines = lineChart([
      {
        name: 'files',
        color: '#000',
        points: [
          { x: 0, y: 1 },
          { x: 10, y: 2 },
        ],
      },
    ]);
    expect(lines.match(/<circle /g)).toHaveLength(2);
    expect(lineChart([], { empty: 'nothing yet' })).toContain('nothing yet');
  });
});

describe('HTTP guard', () => {
  const req = (headers: Record<string, string>) => ({ headers }) as unknown as IncomingMessage;
  it('accepts the bound name and allowedHosts, refuses everything else', () => {
    const g = new HttpGuard(
      { host: '10.0.0.5', publicReads: false, allowedHosts: ['floe.internal'], token: 'x'.repeat(20) },
      8080,
    );
    expect(g.checkOrigin(req({ host: '10.0.0.5:8080' }))).toBeNull();
    expect(g.checkOrigin(req({ host: 'localhost:8080', origin: 'http://localhost:8080' }))).toBeNull();
    expect(g.checkOrigin(req({ host: 'floe.internal', origin: 'https://floe.internal' }))).toBeNull();
    expect(g.checkOrigin(req({ host: '10.0.0.5:8081' }))).toMatch(/is not this server/);
    expect(g.checkOrigin(req({}))).toMatch(/no Host header/);
    expect(g.checkOrigin(req({ host: '10.0.0.5:8080', 'sec-fetch-site': 'cross-site' }))).toMatch(/cross-site/);
    // 0.0.0.0 is not a name a browser uses: only loopback names and allowedHosts
    const any = new HttpGuard({ host: '0.0.0.0', publicReads: false, allowedHosts: [] }, 80);
    expect(any.checkOrigin(req({ host: '0.0.0.0' }))).toMatch(/is not this server/);
    expect(any.checkOrigin(req({ host: 'localhost' }))).toBeNull();
  });

  it('compares tokens exactly', () => {
    const g = new HttpGuard(
      { host: '127.0.0.1', publicReads: false, allowedHosts: [], token: 'secret-token-123456' },
      1,
    );
    expect(g.authenticate(req({ authorization: 'Bearer secret-token-123456' }), true)).toEqual({
      ok: true,
      via: 'bearer',
    });
    expect(g.authenticate(req({ authorization: 'bearer secret-token-123456' }), true)).toEqual({
      ok: true,
      via: 'bearer',
    });
    expect(g.authenticate(req({ authorization: 'Bearer secret-token-12345' }), true)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(g.authenticate(req({ authorization: 'Bearer secret-token-1234567' }), false)).toMatchObject({
      ok: false,
      status: 401,
    });
    expect(g.login('secret-token-123456')).toMatch(/^[0-9a-f]{64}$/);
    expect(g.login('secret-token-12345')).toBeUndefined();
  });
});
