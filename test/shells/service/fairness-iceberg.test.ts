/**
 * Fairness under a budget, on real tables: the service (real scheduler, real `runMaintenanceJob`, real
 * dry-run plans) maintains two local Iceberg tables — a large one flooded with 20 tiny appends every hour
 * and a small one of five larger files — under a budget that pays for one compaction per hour. The flood
 * saves far more file opens per byte, so it wins each hour on benefit per cost; aging must still get the
 * small table served within hours. Without aging (the control) the small table waits the whole horizon.
 * Time comes from a hand-stepped clock (an hour per step); the tables, plans and commits are real.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Field } from '../../../model/index.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable } from '../../../connectors/iceberg/write-table.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { parseServiceConfig } from '../../../src/shells/service/config.js';
import { MaintenanceService } from '../../../src/shells/service/service.js';
import { FakeClock, LogCollector, waitFor } from './fakes.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
];
const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0);
const io = new FileIO();
let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'floe-fairness-'));
});
afterAll(() => {
  io.destroy();
  rmSync(root, { recursive: true, force: true });
});

let nextId = 0;
async function append(dir: string, rows: number): Promise<void> {
  await appendRows(
    io,
    dir,
    Array.from({ length: rows }, () => {
      const id = nextId++;
      return { id: BigInt(id), s: `row ${id} ${'x'.repeat(40)}` };
    }),
  );
}

async function dataFiles(dir: string): Promise<number> {
  return (await loadTableModel(await openIcebergTable(dir, { io }))).dataFiles.length;
}

/** Runs `hours` budget windows; returns which table each hourly compaction served and when the small one first ran. */
async function replay(name: string, aging: string, hours: number) {
  const base = path.join(root, name);
  const large = path.join(base, 'large');
  const small = path.join(base, 'small');
  await createIcebergTable(io, large, { formatVersion: 2, fields: FIELDS });
  await createIcebergTable(io, small, { formatVersion: 2, fields: FIELDS });
  for (let i = 0; i < 5; i++) await append(small, 600);
  for (let i = 0; i < 20; i++) await append(large, 2);
  const cfg = await parseServiceConfig(
    {
      state: 'floe.db',
      concurrency: 1,
      // one byte an hour: the first run of a window always goes (an empty window admits it), the next must wait
      budget: { per: 'hour', bytes: 1, aging },
      defaults: { jobs: { compact: { schedule: 'every 10m', strategy: 'binpack' } } },
      tables: [
        { name: 'large', location: large },
        { name: 'small', location: small },
      ],
    },
    'fairness.yaml',
    base,
  );
  const clock = new FakeClock(T0);
  const log = new LogCollector();
  const svc = new MaintenanceService(cfg, { clock, log: log.sink, reconcile: false });
  await svc.init();
  const served: string[] = [];
  const smallWhy: string[] = [];
  try {
    svc.start();
    for (let h = 0; h < hours; h++) {
      await waitFor(
        () => log.events('job-finish').length + log.events('job-failed').length > h,
        `run of hour ${h}`,
        60_000,
      );
      await svc.idle();
      const last = log.events('job-finish').at(-1)!;
      served.push(String(last.table));
      if (served.at(-1) !== 'small') smallWhy.push(svc.whyOf('small', 'compact')!.code);
      if (served.includes('small') && h >= 2) break;
      // the flood goes on; the next window opens
      for (let i = 0; i < 20; i++) await append(large, 2);
      clock.set(T0 + (h + 1) * (HOUR + 60_000));
      svc.tick();
    }
    expect(log.events('job-failed')).toEqual([]);
  } finally {
    await svc.stop(60_000);
    await svc.close();
  }
  return { served, smallWhy, small, large, log };
}

describe('a budgeted service on real tables', () => {
  it('serves the small table under a flood from the large one: benefit per cost first, aging against starvation', async () => {
    const r = await replay('aged', '30m', 12);
    // the flood is the better buy, so it goes first ...
    expect(r.served[0]).toBe('large');
    // ... and the small table, held meanwhile by the spent budget, is served within the horizon
    const k = r.served.indexOf('small');
    expect(k, `hourly runs went to ${r.served.join(', ')}`).toBeGreaterThan(0);
    expect(r.smallWhy.every((c) => c === 'budget-spent')).toBe(true);
    expect(await dataFiles(r.small)).toBe(1);
    // every run spent from the one budget: its estimate logged before it ran
    const est = r.log.events('job-estimated').filter((e) => e.table === 'small');
    expect(est.length).toBeGreaterThan(0);
    expect(Number(est[0]!.fileOpensSaved)).toBe(4);
  }, 240_000);

  it('control: without aging the flood keeps winning and the small table waits the whole horizon', async () => {
    const r = await replay('no-aging', '0', 5);
    expect(r.served).toEqual(['large', 'large', 'large', 'large', 'large']);
    expect(r.smallWhy.every((c) => c === 'budget-spent')).toBe(true);
    expect(await dataFiles(r.small)).toBe(5);
  }, 240_000);
});
