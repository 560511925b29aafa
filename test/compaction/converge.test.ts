/**
 * Issue 13 item 7: the plan said "table-wide: 30 delete file(s) no longer needed", the commit left 36 delete
 * files, and it took three runs to reach none. The demo table (src/demo/seed.ts: 120 small files, 30
 * equality-delete files) at a target size where each partition gets a rewrite task and an eq→pos task:
 * every equality delete applies to files of both tasks, so neither task alone may drop it — but once both
 * committed, nothing needs it. One run must drop every delete file its plan calls removable.
 */
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoTable } from '../../src/demo/seed.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import { compactIceberg, type CompactOptions, type CompactReport } from '../../src/orchestration/compact-iceberg.js';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { loadTableModel } from '../../connectors/iceberg/table.js';
import { scanTable } from '../../connectors/iceberg/scan.js';
import { deleteFileId } from '../../src/core/planning/deletes.js';

let root: string;
let pristine: string;
beforeAll(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'floe-converge-'));
  pristine = (await seedDemoTable(path.join(root, 'seed'))).location;
}, 120_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A fresh copy of the seeded demo table (the copy is opened by path, its metadata names the original). */
async function demoCopy(name: string): Promise<string> {
  const to = path.join(root, name, 'events');
  cpSync(pristine, to, { recursive: true });
  return to;
}

async function compact(dir: string, opts: CompactOptions): Promise<CompactReport> {
  const o = await openIcebergForWrite(dir, {});
  try {
    return await compactIceberg(o.table, o.io, o.ops!, opts);
  } finally {
    o.files.destroy();
  }
}

async function state(dir: string): Promise<{ deletes: string[]; rows: number }> {
  const o = await openIcebergForWrite(dir, {});
  try {
    const m = await loadTableModel(o.table);
    let rows = 0;
    for await (const b of scanTable(o.table, {})) rows += b.rows.length;
    return { deletes: m.deleteFiles.map(deleteFileId), rows };
  } finally {
    o.files.destroy();
  }
}

describe('one run drops every delete file its plan calls removable (issue 13.7)', () => {
  for (const [name, opts] of [
    [
      'tiered, rewrite + eq→pos tasks per partition (target 4 KiB)',
      { options: { 'self-optimizing.target-size': '4096' } },
    ],
    ['tiered, eq→pos only (target 2 KiB)', { options: { 'self-optimizing.target-size': '2048' } }],
    ['tiered, the demo settings', { options: { 'self-optimizing.target-size': String(4 << 20) } }],
    ['bin-pack', { strategy: 'binpack', options: { 'target-file-size-bytes': '8192', 'min-input-files': '2' } }],
  ] as [string, CompactOptions][]) {
    it(
      name,
      async () => {
        const dir = await demoCopy(name.replace(/\W+/g, '-'));
        const before = await state(dir);
        expect(before.deletes.length).toBe(30);
        const report = await compact(dir, opts);
        expect(report.failedTasks).toEqual([]);
        const promised = new Set(
          [...report.plan.removableDeletes, ...report.plan.tasks.flatMap((t) => t.removableDeletes)].map(deleteFileId),
        );
        const after = await state(dir);
        expect(after.rows, 'live rows unchanged').toBe(before.rows);
        expect(
          after.deletes.filter((d) => promised.has(d)),
          'delete files the plan called removable that are still live',
        ).toEqual([]);
        // what is left are only the position deletes this run's eq→pos tasks wrote
        const original = new Set(before.deletes);
        if (report.plan.removableDeletes.length === before.deletes.length) {
          expect(
            after.deletes.filter((d) => original.has(d)),
            'every original delete file is gone',
          ).toEqual([]);
        }
        expect(report.after?.deleteFiles).toBe(after.deletes.length);
        // a second run has nothing of the first plan's removable deletes left to drop
        const again = await compact(dir, opts);
        expect([...again.plan.removableDeletes].map(deleteFileId).filter((d) => promised.has(d))).toEqual([]);
        expect((await state(dir)).rows).toBe(before.rows);
      },
      120_000,
    );
  }
});
