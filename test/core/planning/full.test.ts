/**
 * Issue 13.1 (Iceberg side): `compactIceberg({ full: true })` rewrites every data file of the selected
 * partitions into target-size files — bin-pack with Spark's rewrite-all — even files the normal planners
 * leave alone; `--where` (self-optimizing.filter) limits it to matching partitions.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { planIceberg, compactIceberg } from '../../../src/orchestration/compact-iceberg.js';
import { seedDemoTable } from '../../../src/demo/seed.js';
import { openIcebergForWrite } from '../../../connectors/iceberg/open-for-write.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { countLiveRows } from '../../../connectors/iceberg/scan.js';
import { dataFile, identitySpec, makeTable, MiB, paths } from './fixtures.js';

const temps: string[] = [];
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

describe('planIceberg({ full: true })', () => {
  const eu = [dataFile({ size: 100 * MiB, partition: ['eu'] }), dataFile({ size: 100 * MiB, partition: ['eu'] })];
  const us = [dataFile({ size: 100 * MiB, partition: ['us'] }), dataFile({ size: 100 * MiB, partition: ['us'] })];
  const table = makeTable({ specs: [identitySpec(0)], dataFiles: [...eu, ...us] });
  const options = { 'target-file-size-bytes': String(100 * MiB), 'self-optimizing.target-size': String(100 * MiB) };

  it('target-size files without deletes: the normal planners do nothing, full rewrites every file', () => {
    expect(planIceberg(table, { options }, 0).tasks).toHaveLength(0);
    expect(planIceberg(table, { strategy: 'binpack', options }, 0).tasks).toHaveLength(0);
    const plan = planIceberg(table, { full: true, options }, 0);
    expect(plan.planner).toBe('binpack');
    expect(plan.tasks.flatMap((t) => paths(t.inputs)).sort()).toEqual(paths([...eu, ...us]).sort());
    expect(plan.trail[0]).toMatchObject({ gate: 'full' });
  });

  it('--where narrows full compaction to the matching partitions', () => {
    const plan = planIceberg(
      table,
      { full: true, options: { ...options, 'self-optimizing.filter': "name = 'eu'" } },
      0,
    );
    expect(plan.tasks.flatMap((t) => paths(t.inputs)).sort()).toEqual(paths(eu).sort());
    expect(plan.trail[0]!.detail).toMatch(/all 2 data file\(s\) matching "name = 'eu'" \(of 4\)/);
    expect(plan.tasks.map((t) => t.partitionLabel)).toEqual(plan.tasks.map(() => 'p2=eu'));
    // plain bin-pack plans are labelled too
    const binpack = planIceberg(table, { strategy: 'binpack', options: { ...options, 'rewrite-all': 'true' } }, 0);
    expect(new Set(binpack.tasks.map((t) => t.partitionLabel))).toEqual(new Set(['p2=eu', 'p2=us']));
  });
});

describe('compactIceberg({ full: true }) on a local table', () => {
  it('rewrites the eu partition into one file, leaves the others, keeps the rows', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-full-'));
    temps.push(dir);
    const seeded = await seedDemoTable(dir, 6, 40);
    const t0 = await openIcebergTable(seeded.location);
    const before = await loadTableModel(t0);
    const rows = await countLiveRows(t0);
    const euBefore = before.dataFiles.filter((f) => f.partition[0] === 'eu');
    expect(euBefore.length).toBeGreaterThan(1);
    const opened = await openIcebergForWrite(seeded.location, {});
    try {
      const r = await compactIceberg(opened.table, opened.io, opened.ops!, {
        full: true,
        options: { 'self-optimizing.filter': "region = 'eu'" },
      });
      expect(r.failedTasks).toEqual([]);
      expect(r.snapshots).toHaveLength(1);
    } finally {
      opened.files.destroy();
    }
    const t1 = await openIcebergTable(seeded.location);
    const after = await loadTableModel(t1);
    expect(after.dataFiles.filter((f) => f.partition[0] === 'eu')).toHaveLength(1);
    const others = (m: typeof before) =>
      m.dataFiles
        .filter((f) => f.partition[0] !== 'eu')
        .map((f) => f.path)
        .sort();
    expect(others(after)).toEqual(others(before));
    expect(await countLiveRows(t1)).toBe(rows);
    expect(rows).toBe(seeded.expectedRows);
  });
});
