/**
 * End to end: `compactIceberg` on a real filesystem table uses row-group stitching when it is safe (the
 * progress events and the task trail say so; nested types are covered file-level in stitch.test.ts, the
 * test table writer takes primitives only), falls back to decode/encode when a delete applies or the row
 * groups are small, and floe's scan sees the same rows before and after either way.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Field } from '../../../model/index.js';
import type { ProgressEvent } from '../../../src/core/execution/events.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable, deleteByEquality } from '../../../connectors/iceberg/write-table.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { scanTable } from '../../../connectors/iceberg/scan.js';
import { openIcebergForWrite } from '../../../connectors/iceberg/open-for-write.js';
import { compactIceberg, type CompactReport } from '../../../src/orchestration/compact-iceberg.js';
import { readParquetFooter } from '../../../connectors/formats/parquet/index.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'name', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'amount', required: false, type: { kind: 'primitive', name: 'decimal', precision: 20, scale: 3 } },
  { id: 4, name: 'score', required: false, type: { kind: 'primitive', name: 'double' } },
  { id: 5, name: 'at', required: false, type: { kind: 'primitive', name: 'timestamptz' } },
];

function rows(start: number, n: number): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, k) => {
    const id = start + k;
    return {
      id: BigInt(id),
      name: id % 11 === 0 ? null : `name-${id}`,
      amount: `${id * 3}.${String(id % 1000).padStart(3, '0')}`,
      score: id % 13 === 0 ? NaN : id / 7,
      at: id % 5 === 0 ? null : 1_700_000_000_000_000n + BigInt(id) * 1_000_001n,
    };
  });
}

const roots: string[] = [];
const fileIOs: FileIO[] = [];
afterEach(() => {
  for (const f of fileIOs.splice(0)) f.destroy();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

async function table(): Promise<{ dir: string; io: FileIO }> {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-stitch-e2e-'));
  roots.push(root);
  const files = new FileIO();
  fileIOs.push(files);
  const io = files;
  const dir = path.join(root, 't');
  await createIcebergTable(io, dir, { formatVersion: 2, fields: FIELDS });
  for (let b = 0; b < 3; b++) await appendRows(io, dir, rows(b * 1500, 1500));
  return { dir, io };
}

async function scan(dir: string, io: FileIO): Promise<string[]> {
  const t = await openIcebergTable(dir, { io });
  const out: string[] = [];
  for await (const b of scanTable(t)) {
    for (const r of b.rows)
      out.push(
        JSON.stringify(r, (_k, v) =>
          typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && Number.isNaN(v) ? 'NaN' : v,
        ),
      );
  }
  return out.sort();
}

async function compact(
  dir: string,
  options: Record<string, string>,
): Promise<{ report: CompactReport; events: ProgressEvent[] }> {
  const opened = await openIcebergForWrite(dir, {});
  const events: ProgressEvent[] = [];
  try {
    const report = await compactIceberg(opened.table, opened.io, opened.ops!, {
      strategy: 'binpack',
      options: { 'min-input-files': '2', ...options },
      onProgress: (e) => events.push(e),
    });
    return { report, events };
  } finally {
    opened.files.destroy();
  }
}

const messages = (events: ProgressEvent[]) => events.flatMap((e) => (e.type === 'message' ? [e.text] : []));

describe('compaction with row-group stitching', () => {
  it('stitches files with large enough row groups and leaves the rows unchanged', async () => {
    const { dir, io } = await table();
    const before = await scan(dir, io);
    expect(before.length).toBe(4500);
    const { report, events } = await compact(dir, { 'floe.rewrite.stitch.min-row-group-bytes': '1' });
    expect(report.failedTasks).toEqual([]);
    expect(report.rowsOut).toBe(4500);
    expect(messages(events).some((m) => /stitched 3 row group\(s\) from 3 file\(s\) without decoding/.test(m))).toBe(
      true,
    );
    expect(report.plan.tasks[0]!.trail.some((s) => s.gate === 'stitch' && s.outcome === 'pick')).toBe(true);

    const model = await loadTableModel(await openIcebergTable(dir, { io }));
    expect(model.dataFiles.length).toBe(1);
    const out = model.dataFiles[0]!;
    const footer = readParquetFooter(await io.read(out.path), out.path);
    expect(footer.rowGroups.length).toBe(3); // the inputs' row groups, copied
    expect(footer.createdBy).toBe('floe version 0.1.0');
    expect(out.recordCount).toBe(4500);
    // manifest metrics come from the stitched footer plus decoded doubles
    expect(out.stats?.valueCounts?.get(1)).toBe(4500n);
    expect(out.stats?.nanValueCounts?.get(4)).toBe(BigInt(rows(0, 4500).filter((r) => Number.isNaN(r.score)).length));
    expect(await scan(dir, io)).toEqual(before);
  });

  it('falls back to decode/encode when deletes apply, and when row groups are small', async () => {
    const { dir, io } = await table();
    await deleteByEquality(io, dir, ['id'], [[7n], [1600n]]);
    const before = await scan(dir, io);
    expect(before.length).toBe(4498);
    const { report, events } = await compact(dir, {
      'floe.rewrite.stitch.min-row-group-bytes': '1',
      'floe.rewrite.stitch.enabled': 'true',
    });
    expect(report.failedTasks).toEqual([]);
    expect(messages(events).some((m) => /without decoding/.test(m))).toBe(false);
    expect(messages(events).some((m) => /not stitched \(.*delete/.test(m))).toBe(true);
    expect(await scan(dir, io)).toEqual(before);

    const small = await table();
    const smallBefore = await scan(small.dir, small.io);
    const r2 = await compact(small.dir, {}); // default minimum: a quarter of 128 MiB
    expect(r2.report.failedTasks).toEqual([]);
    expect(messages(r2.events).some((m) => /without decoding/.test(m))).toBe(false);
    expect(r2.report.plan.tasks[0]!.trail.some((s) => s.gate === 'stitch' && /row groups average/.test(s.detail))).toBe(
      true,
    );
    expect(await scan(small.dir, small.io)).toEqual(smallBefore);
    const model = await loadTableModel(await openIcebergTable(small.dir, { io: small.io }));
    expect(model.dataFiles.length).toBe(1);
  });
});
