/**
 * Issue 14.3 against Java Iceberg: `floe compact --deletes-only` (Spark's rewrite_position_delete_files)
 * on Java-written tables. v2: several small position delete files merge into one; v3: after a partial
 * rewrite, the surviving DV leaves its mostly dead Puffin file. Java reads exactly the hand-tracked rows
 * afterwards and keeps writing on top.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ColumnSpec, type InputRow, diffRows, javaIceberg } from '../oracles/index.js';
import { RowModel, floeCompactCli, floeRows, skipLoudly, tableModel } from './helpers.js';

const java = await javaIceberg.available();
if (!java.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable: ${java.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-rewrite-pos-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { id: 'long', s: 'string' };
const SCHEMA: ColumnSpec[] = [
  { name: 'id', type: 'long', required: true },
  { name: 's', type: 'string', required: false },
];

describe('floe compact --deletes-only on Java-written tables (issue 14.3)', () => {
  it('v2: five small position delete files merge into one; Java reads the same rows and keeps deleting', async (ctx) => {
    if (!java.ok) skipLoudly(ctx, `java oracle unavailable: ${java.reason}`);
    const dir = path.join(work, 'v2');
    const model = new RowModel(TYPES);
    const rows = (k: number): InputRow[] =>
      Array.from({ length: 20 }, (_, i) => ({ id: String(k * 100 + i), s: `r${k}-${i}` }));
    const dels = [0, 1, 2, 3, 4].map((k) => [{ id: String(k) }, { id: String(100 + k) }]);
    await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: SCHEMA,
      identifierFields: ['id'],
      ops: [
        { op: 'append', rows: rows(0) },
        { op: 'append', rows: rows(1) },
        ...dels.map((where) => ({ op: 'delete-pos' as const, where })),
      ],
    });
    model.append(rows(0));
    model.append(rows(1));
    for (const d of dels) model.deleteWhere(d);
    const before = await tableModel(dir);
    expect(before.deleteFiles.filter((d) => d.content === 'position-deletes').length).toBeGreaterThanOrEqual(5);

    const { report, exitCode } = await floeCompactCli([dir, '--deletes-only']);
    expect(exitCode).toBe(0);
    expect(report.committedTasks.length).toBe(1);
    const after = await tableModel(dir);
    expect(after.deleteFiles.length, 'one merged position delete file').toBe(1);
    expect(after.dataFiles.map((f) => f.path).sort(), 'no data rewritten').toEqual(
      before.dataFiles.map((f) => f.path).sort(),
    );
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after --deletes-only' }).text).toBe('');
    expect(diffRows(model.live(), await floeRows(dir), { actual: 'floe after --deletes-only' }).text).toBe('');

    await javaIceberg.delete(dir, { mode: 'pos', where: [{ id: '10' }] });
    model.deleteWhere([{ id: '10' }]);
    await javaIceberg.append(dir, [{ id: '999', s: 'new' }]);
    model.append([{ id: '999', s: 'new' }]);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after its writes' }).text).toBe('');
  }, 300_000);

  it('v3: the DV left in a mostly dead Puffin file moves to a new one; Java reads the same rows and keeps deleting', async (ctx) => {
    if (!java.ok) skipLoudly(ctx, `java oracle unavailable: ${java.reason}`);
    const dir = path.join(work, 'v3');
    const model = new RowModel(TYPES);
    const noise = (i: number) =>
      [1, 2, 3].map((k) => (Math.imul(i + k * 7919, 2654435761) >>> 0).toString(36)).join('');
    const large: InputRow[] = Array.from({ length: 8000 }, (_, i) => ({ id: String(i), s: `large-${noise(i)}` }));
    const small = (k: number): InputRow[] => [
      { id: String(10_000 + 2 * k), s: 'x' },
      { id: String(10_001 + 2 * k), s: 'x' },
    ];
    const where = [{ id: '11' }, { id: '10000' }, { id: '10002' }, { id: '10004' }, { id: '10006' }];
    await javaIceberg.write(dir, {
      formatVersion: 3,
      schema: SCHEMA,
      identifierFields: ['id'],
      ops: [
        { op: 'append', rows: large },
        ...[0, 1, 2, 3].map((k) => ({ op: 'append' as const, rows: small(k) })),
        { op: 'delete-pos', where },
      ],
    });
    model.append(large);
    for (const k of [0, 1, 2, 3]) model.append(small(k));
    model.deleteWhere(where);
    const puffin = (await tableModel(dir)).deleteFiles.find((d) => d.content === 'deletion-vector')!.path;
    // tiered at a 256 KiB target merges the four small files (dropping their DVs); the large file's DV stays
    const first = await floeCompactCli([dir, '--target-size', '256KB', '--force']);
    expect(first.exitCode).toBe(0);
    expect((await tableModel(dir)).deleteFiles.map((d) => d.path)).toEqual([puffin]);

    const { report, exitCode } = await floeCompactCli([dir, '--deletes-only']);
    expect(exitCode).toBe(0);
    expect(report.committedTasks.length).toBe(1);
    const after = await tableModel(dir);
    const dvs = after.deleteFiles.filter((d) => d.content === 'deletion-vector');
    expect(dvs.length).toBe(1);
    expect(dvs[0]!.path, 'moved out of the mostly dead Puffin file').not.toBe(puffin);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after --deletes-only' }).text).toBe('');
    expect(diffRows(model.live(), await floeRows(dir), { actual: 'floe after --deletes-only' }).text).toBe('');

    // Java replaces floe's DV when it deletes more rows of the same file
    await javaIceberg.delete(dir, { mode: 'pos', where: [{ id: '12' }] });
    model.deleteWhere([{ id: '12' }]);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after its delete' }).text).toBe('');
  }, 300_000);
});
