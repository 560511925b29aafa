/**
 * Issue 28.8/28.10: `floe serve`'s first start against a new state database runs every job at once (none
 * has a last run to count from) — it says so first, naming the jobs that will change tables; a restart with
 * the same database does not. The `service-start` line lists every table under management, not only the
 * config's `tables:`. A real SQLite state database in a scratch folder, a fake clock and job runner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { FakeClock, LogCollector, okResult } from './fakes.js';

const T0 = Date.UTC(2025, 0, 1, 0, 0, 0);
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'floe-first-start-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function start(raw: Record<string, unknown>, log = new LogCollector()) {
  const config = await parseServiceConfig({ state: 'state.db', ...raw }, 'test.yaml', dir);
  // every job succeeds at once
  const svc = new MaintenanceService(config, {
    clock: new FakeClock(T0),
    runJob: (spec) => Promise.resolve(okResult(spec)),
    log: log.sink,
  });
  await svc.init();
  return { svc, log, config };
}

describe('first start against a new state database', () => {
  it('says which jobs start now and change tables, and how to only look; a restart says nothing', async () => {
    const raw = {
      tables: [
        { name: 'a', location: '/t/a', jobs: { compact: 'hourly', expire: { schedule: 'daily', dryRun: true } } },
        { name: 'b', location: '/t/b', jobs: { compact: 'hourly' } },
      ],
    };
    const first = await start(raw);
    first.svc.start();
    const [e] = first.log.events('first-start');
    expect(e).toMatchObject({
      level: 'warn',
      dueNow: [
        { table: 'a', job: 'compact', dryRun: false },
        { table: 'a', job: 'expire', dryRun: true },
        { table: 'b', job: 'compact', dryRun: false },
      ],
    });
    expect(String(e!.message)).toMatch(
      /new state database: no job has run yet, so 3 job\(s\) are due and start now — 2 will change tables \(compact a, compact b\), 1 are dry runs\. To only look, stop \(Ctrl-C\) and set dryRun: true/,
    );
    // the notice comes before any job starts
    const order = first.log.entries.map((x) => x.event);
    expect(order).toContain('job-start');
    expect(order.indexOf('first-start')).toBeLessThan(order.indexOf('job-start'));
    await first.svc.idle();
    await first.svc.stop(1000);
    await first.svc.close();

    const again = await start(raw);
    again.svc.start();
    expect(again.log.events('first-start')).toHaveLength(0);
    await again.svc.stop(1000);
    await again.svc.close();
  });

  it('only dry runs: an info line that nothing will be committed', async () => {
    const s = await start({
      tables: [{ name: 'a', location: '/t/a', jobs: { compact: { schedule: 'hourly', dryRun: true } } }],
    });
    await s.svc.runOnce();
    expect(s.log.events('first-start')).toMatchObject([{ level: 'info' }]);
    expect(String(s.log.events('first-start')[0]!.message)).toMatch(
      /all of them dry runs: nothing is committed or deleted/,
    );
    await s.svc.close();
  });

  it('service-start lists every table under management, discovered ones too', async () => {
    const s = await start({ tables: [{ name: 'a', location: '/t/a', jobs: { compact: 'hourly' } }] });
    // what Discovery does for a catalog's table: one more TableConfig beside the config's
    const found = { ...s.config.tables[0]!, name: 'lake.db.orders', table: '/t/orders', source: 'lake' };
    await s.svc.syncTables([...s.config.tables, found]);
    s.svc.start();
    expect(s.log.events('service-start')).toMatchObject([{ tables: ['a', 'lake.db.orders'] }]);
    await s.svc.stop(1000);
    await s.svc.close();
  });
});
