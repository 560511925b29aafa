/**
 * Issue 14.4 end to end on a real table (floe's writer, `compactIceberg` as `floe compact` runs it):
 * - `--strategy sort`: every output file is sorted and the files of a group follow each other in order;
 *   no row lost or resurrected (an equality delete is applied); the table's default sort order is used when
 *   none is given and its id is recorded in the manifest entries; an unsorted table without an order is
 *   refused before anything is written; a tiny memory budget (spill) writes the same rows in the same order;
 * - `--strategy zorder`: per-file bounds on the z columns are tighter than bin-pack's on the same input
 *   (the figure is printed).
 */
import { readFileSync, readdirSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readParquetTable, rowsFromArrow } from '../../../connectors/formats/parquet/index.js';
import { loadTableModel, openIcebergTable } from '../../../connectors/iceberg/table.js';
import { appendRows, createIcebergTable, deleteByEquality } from '../../../connectors/iceberg/write-table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { openIcebergForWrite } from '../../../connectors/iceberg/open-for-write.js';
import type { DataFile, Field } from '../../../model/index.js';
import { compactIceberg, type CompactOptions, type CompactReport } from '../../../src/orchestration/compact-iceberg.js';

const long = { kind: 'primitive', name: 'long' } as const;
const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: long },
  { id: 2, name: 'x', required: false, type: long },
  { id: 3, name: 'y', required: false, type: long },
  { id: 4, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
];
type R = { id: bigint; x: bigint | null; y: bigint | null; s: string };

const roots: string[] = [];
const ios: FileIO[] = [];
afterEach(() => {
  for (const f of ios.splice(0)) f.destroy();
  for (const r of roots.splice(0)) rmSync(r, { recursive: true, force: true });
});

/** 16 small files of 250 random rows (x, y in 0..999, some nulls), then an equality delete. */
async function makeTable(): Promise<{ dir: string; io: FileIO; expected: R[] }> {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-sort-compact-'));
  roots.push(root);
  const files = new FileIO();
  ios.push(files);
  const io = files;
  const dir = path.join(root, 't');
  await createIcebergTable(io, dir, {
    formatVersion: 2,
    fields: FIELDS,
    properties: { 'write.parquet.compression-codec': 'uncompressed' },
  });
  let state = 42;
  const rnd = (m: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % m;
  };
  const all: R[] = [];
  let id = 0n;
  for (let f = 0; f < 16; f++) {
    const rows: R[] = [];
    for (let i = 0; i < 250; i++)
      rows.push({
        id: id++,
        x: rnd(50) === 0 ? null : BigInt(rnd(1000)),
        y: rnd(50) === 0 ? null : BigInt(rnd(1000)),
        s: `row-${id}`,
      });
    await appendRows(io, dir, rows as unknown as Record<string, unknown>[]);
    all.push(...rows);
  }
  const gone = new Set([3n, 700n, 2500n, 3999n]);
  await deleteByEquality(
    io,
    dir,
    ['id'],
    [...gone].map((g) => [g]),
  );
  return { dir, io, expected: all.filter((r) => !gone.has(r.id)) };
}

async function compact(dir: string, opts: CompactOptions): Promise<CompactReport> {
  const opened = await openIcebergForWrite(dir, {});
  try {
    return await compactIceberg(opened.table, opened.io, opened.ops!, opts);
  } finally {
    opened.files.destroy();
  }
}

const OPTIONS = {
  'target-file-size-bytes': String(8 * 1024),
  'rewrite-all': 'true',
  'max-file-group-size-bytes': String(1 << 30),
};

async function liveFiles(dir: string, io: FileIO): Promise<DataFile[]> {
  const model = await loadTableModel(await openIcebergTable(dir, { io }));
  // output file names end in the writer's index: read them in the order they were written
  return [...model.dataFiles].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function rowsOf(file: DataFile): Promise<R[]> {
  const bytes = readFileSync(file.path.replace(/^file:\/\//, ''));
  return [...rowsFromArrow(await readParquetTable(new Uint8Array(bytes), file.path), FIELDS)] as unknown as R[];
}

const key = (r: R) => `${r.id}|${r.x}|${r.y}|${r.s}`;
const cmpNum = (a: bigint | null, b: bigint | null, desc: boolean, nullsFirst: boolean): number => {
  if (a === null || b === null) return a === b ? 0 : (a === null) === nullsFirst ? -1 : 1;
  return a === b ? 0 : a < b !== desc ? -1 : 1;
};
/** x ASC NULLS FIRST, y DESC NULLS LAST — the test's own comparator. */
const xAscYDesc = (p: R, q: R) => cmpNum(p.x, q.x, false, true) || cmpNum(p.y, q.y, true, false);

describe('compact --strategy sort', () => {
  it('writes sorted files in order, keeps every live row, and a spilled sort writes the same', async () => {
    const a = await makeTable();
    const report = await compact(a.dir, {
      strategy: 'sort',
      sort: { sortOrder: 'x ASC NULLS FIRST, y DESC' },
      options: OPTIONS,
    });
    expect(report.failedTasks).toEqual([]);
    expect(report.committedTasks).toEqual(['sort-1']);
    const files = await liveFiles(a.dir, a.io);
    expect(files.length).toBeGreaterThan(2);
    const seq: R[] = [];
    for (const f of files) {
      const rows = await rowsOf(f);
      for (let i = 1; i < rows.length; i++) expect(xAscYDesc(rows[i - 1]!, rows[i]!)).toBeLessThanOrEqual(0);
      if (seq.length) expect(xAscYDesc(seq[seq.length - 1]!, rows[0]!)).toBeLessThanOrEqual(0); // across files
      seq.push(...rows);
      expect(f.sortOrderId ?? 0).toBe(0); // an order that is not one of the table's
    }
    expect(seq.map(key).sort()).toEqual(a.expected.map(key).sort());
    expect(seq[0]!.x).toBeNull(); // NULLS FIRST
    console.log(`[sort] ${files.length} files, ${seq.length} rows sorted by x ASC NULLS FIRST, y DESC`);

    // same input, a 16 KiB memory budget: many spilled runs, merged; the same rows in the same order
    const b = await makeTable();
    const spillDir = mkdtempSync(path.join(tmpdir(), 'floe-spill-'));
    roots.push(spillDir);
    const messages: string[] = [];
    await compact(b.dir, {
      strategy: 'sort',
      sort: { sortOrder: 'x ASC NULLS FIRST, y DESC', memoryBytes: 16 * 1024, spillDir },
      options: OPTIONS,
      onProgress: (e) => e.type === 'message' && messages.push(e.text),
    });
    expect(messages.filter((m) => m.includes('spilled sorted run')).length).toBeGreaterThan(3);
    const seqB: R[] = [];
    for (const f of await liveFiles(b.dir, b.io)) seqB.push(...(await rowsOf(f)));
    expect(seqB.map(key)).toEqual(seq.map(key));
    expect(readdirSync(spillDir)).toEqual([]); // the runs are gone
  });

  it("uses the table's default sort order and records its id; refuses an unsorted table without an order", async () => {
    const t = await makeTable();
    await expect(compact(t.dir, { strategy: 'sort', options: OPTIONS })).rejects.toThrow(
      /the table has no sort order; give one with --sort-order/,
    );
    // give the table a default sort order (as Spark's ALTER TABLE … WRITE ORDERED BY would)
    const table = await openIcebergTable(t.dir, { io: t.io });
    const mdPath = table.metadataLocation.replace(/^file:\/\//, '');
    const md = JSON.parse(readFileSync(mdPath, 'utf8')) as Record<string, unknown>;
    md['sort-orders'] = [
      { 'order-id': 0, fields: [] },
      {
        'order-id': 1,
        fields: [{ 'source-id': 3, transform: 'identity', direction: 'desc', 'null-order': 'nulls-last' }],
      },
    ];
    md['default-sort-order-id'] = 1;
    writeFileSync(mdPath, JSON.stringify(md));
    const report = await compact(t.dir, { strategy: 'sort', options: OPTIONS });
    expect(report.failedTasks).toEqual([]);
    const files = await liveFiles(t.dir, t.io);
    const seq: R[] = [];
    for (const f of files) {
      expect(f.sortOrderId).toBe(1);
      seq.push(...(await rowsOf(f)));
    }
    for (let i = 1; i < seq.length; i++) expect(cmpNum(seq[i - 1]!.y, seq[i]!.y, true, false)).toBeLessThanOrEqual(0);
    expect(seq[seq.length - 1]!.y).toBeNull();
    expect(seq.map(key).sort()).toEqual(t.expected.map(key).sort());
  });
  it('a cancel while sorting removes the spilled runs and every output, and commits nothing', async () => {
    const t = await makeTable();
    const before = await liveFiles(t.dir, t.io);
    const spillDir = mkdtempSync(path.join(tmpdir(), 'floe-spill-'));
    roots.push(spillDir);
    const ctrl = new AbortController();
    let spills = 0;
    const err = await compact(t.dir, {
      strategy: 'sort',
      sort: { sortOrder: 'y', memoryBytes: 16 * 1024, spillDir },
      options: OPTIONS,
      signal: ctrl.signal,
      onProgress: (e) => {
        if (e.type === 'message' && e.text.includes('spilled sorted run') && ++spills === 3)
          ctrl.abort(new Error('test cancel'));
      },
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as { context?: { cancelled?: boolean; committed?: boolean } }).context).toMatchObject({
      cancelled: true,
      committed: false,
    });
    expect(readdirSync(spillDir)).toEqual([]);
    expect((await liveFiles(t.dir, t.io)).map((f) => f.path)).toEqual(before.map((f) => f.path));
    // no data file other than the table's own is left in the data directory
    const onDisk = readdirSync(path.join(t.dir, 'data'), { recursive: true })
      .map(String)
      .filter((n) => n.endsWith('.parquet'));
    expect(onDisk.length).toBe(before.length + 1); // the data files and the equality-delete file
  });
});

describe('compact --strategy zorder', () => {
  it('gives tighter per-file bounds on the z columns than bin-pack of the same input', async () => {
    const measure = async (dir: string, io: FileIO) => {
      const files = await liveFiles(dir, io);
      const boxes: { x: [number, number]; y: [number, number] }[] = [];
      const all: R[] = [];
      for (const f of files) {
        const rows = (await rowsOf(f)).filter((r) => r.x !== null && r.y !== null);
        all.push(...(await rowsOf(f)));
        const xs = rows.map((r) => Number(r.x));
        const ys = rows.map((r) => Number(r.y));
        boxes.push({ x: [Math.min(...xs), Math.max(...xs)], y: [Math.min(...ys), Math.max(...ys)] });
      }
      const width = (k: 'x' | 'y') => boxes.reduce((n, b) => n + (b[k][1] - b[k][0]) / 999, 0) / boxes.length;
      const area = boxes.reduce((n, b) => n + ((b.x[1] - b.x[0]) / 999) * ((b.y[1] - b.y[0]) / 999), 0) / boxes.length;
      // mean share of the other files whose x/y box overlaps a file's: what a point lookup cannot prune
      let overlaps = 0;
      for (const [i, p] of boxes.entries())
        for (const [j, q] of boxes.entries())
          if (i !== j && p.x[0] <= q.x[1] && q.x[0] <= p.x[1] && p.y[0] <= q.y[1] && q.y[0] <= p.y[1]) overlaps++;
      return {
        files: files.length,
        width: { x: width('x'), y: width('y') },
        area,
        overlap: boxes.length > 1 ? overlaps / (boxes.length * (boxes.length - 1)) : 0,
        rows: all,
      };
    };
    const bp = await makeTable();
    await compact(bp.dir, { strategy: 'binpack', options: OPTIONS });
    const z = await makeTable();
    const report = await compact(z.dir, { strategy: 'zorder', sort: { columns: ['x', 'y'] }, options: OPTIONS });
    expect(report.committedTasks).toEqual(['zorder-1']);
    const a = await measure(bp.dir, bp.io);
    const b = await measure(z.dir, z.io);
    const fmt = (m: typeof a) =>
      `${m.files} files, mean x width ${m.width.x.toFixed(3)}, y width ${m.width.y.toFixed(3)}, mean x·y box area ${m.area.toFixed(3)}, box overlap ${(m.overlap * 100).toFixed(0)}%`;
    console.log(`[zorder] bin-pack: ${fmt(a)}\n[zorder] z-order(x,y): ${fmt(b)}`);
    expect(b.rows.map(key).sort()).toEqual(z.expected.map(key).sort());
    expect(a.rows.map(key).sort()).toEqual(bp.expected.map(key).sort());
    expect(b.files).toBeGreaterThan(2);
    expect(b.area).toBeLessThan(a.area / 2);
    expect(b.overlap).toBeLessThan(a.overlap);
  });
});
