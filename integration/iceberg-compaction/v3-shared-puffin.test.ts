/**
 * Issue 9 item 0 against the reference engine: Java Iceberg writes a v3 table with one larger data file and
 * small ones, equality deletes, and one delete commit whose deletion vectors for several data files share
 * one Puffin file. `floe compact --target-size 256KB` (tiered) merges the small files and leaves the larger
 * file (its equality deletes, if converted, go into a new DV merged with its old one — issue 14.2); the
 * larger file keeps exactly one DV with all its deleted positions, so Java, and floe,
 * read exactly the hand-tracked rows afterwards — no deleted row comes back.
 *
 * Also: Java reads a table whose DVs floe's Puffin writer (connectors/iceberg/puffin-write.ts, used by the
 * unit tests to build such tables) wrote, so those tests stand on a format Java accepts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ColumnSpec, type InputRow, diffRows, javaIceberg } from '../oracles/index.js';
import { RowModel, floeCompactCli, floeRows, skipLoudly, tableModel } from './helpers.js';
import { TestTable } from '../../test/compaction/harness.js';
import { commitDeletionVectors } from '../../test/compaction/positional-deletes.js';
import type { Row } from '../../test/compaction/model.js';

const java = await javaIceberg.available();
if (!java.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable: ${java.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-v3-puffin-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { id: 'long', s: 'string' };
const SCHEMA: ColumnSpec[] = [
  { name: 'id', type: 'long', required: true },
  { name: 's', type: 'string', required: false },
];

describe('v3 table with DVs of several files in one Puffin file, Java-written (issue 9.0)', () => {
  it('tiered compaction at --target-size 256KB keeps the DV of the file it does not rewrite (Java reads the same rows)', async (ctx) => {
    if (!java.ok) skipLoudly(ctx, `java oracle unavailable: ${java.reason}`);
    const dir = path.join(work, 'shared-puffin');
    const model = new RowModel(TYPES);
    // incompressible strings: the file lands between the fragment size (32 KiB) and the target (256 KiB)
    const noise = (i: number) =>
      [1, 2, 3].map((k) => (Math.imul(i + k * 7919, 2654435761) >>> 0).toString(36)).join('');
    const large: InputRow[] = Array.from({ length: 8000 }, (_, i) => ({ id: String(i), s: `large-${noise(i)}` }));
    const small = (k: number): InputRow[] => [
      { id: String(10_000 + 2 * k), s: 'x' },
      { id: String(10_001 + 2 * k), s: 'x' },
    ];
    const ops = [
      { op: 'append' as const, rows: large },
      ...[0, 1, 2, 3].map((k) => ({ op: 'append' as const, rows: small(k) })),
      { op: 'delete-eq' as const, rows: [{ id: '10000' }, { id: '7' }], fields: ['id'] },
      // one commit: DVs for the larger file and two small files, in one Puffin file
      { op: 'delete-pos' as const, where: [{ id: '11' }, { id: '4000' }, { id: '10003' }, { id: '10004' }] },
    ];
    await javaIceberg.write(dir, { formatVersion: 3, schema: SCHEMA, identifierFields: ['id'], ops });
    model.append(large);
    for (const k of [0, 1, 2, 3]) model.append(small(k));
    model.deleteKeys([{ id: '10000' }, { id: '7' }], ['id']);
    model.deleteWhere([{ id: '11' }, { id: '4000' }, { id: '10003' }, { id: '10004' }]);

    const before = await tableModel(dir);
    const dvs = before.deleteFiles.filter((d) => d.content === 'deletion-vector');
    expect(dvs.length, 'Java wrote one DV per touched data file').toBe(3);
    expect(new Set(dvs.map((d) => d.path)).size, 'in one Puffin file').toBe(1);
    const largeFile = before.dataFiles.find((f) => f.recordCount === 8000)!.path;
    const largeBytes = before.dataFiles.find((f) => f.recordCount === 8000)!.sizeBytes;
    expect(largeBytes, 'the larger file is a segment at a 256 KiB target').toBeGreaterThan(32 * 1024);
    expect(largeBytes).toBeLessThan(192 * 1024);
    expect(dvs.some((d) => d.content === 'deletion-vector' && d.referencedDataFile === largeFile)).toBe(true);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java before' }).text).toBe('');

    const { report, exitCode } = await floeCompactCli([dir, '--target-size', '256KB', '--force']);
    expect(exitCode).toBe(0);
    expect(report.committedTasks.length).toBeGreaterThan(0);
    const rewritten = new Set(
      report.plan.tasks
        .filter((t) => t.kind !== 'eq-to-pos' && report.committedTasks.includes(t.id))
        .flatMap((t) => t.inputs),
    );
    expect(rewritten.has(largeFile), 'the larger file is not rewritten').toBe(false);

    const after = await tableModel(dir);
    const left = after.deleteFiles.filter((d) => d.content === 'deletion-vector');
    expect(
      left.map((d) => (d.content === 'deletion-vector' ? d.referencedDataFile : '')),
      'the larger file keeps its DV',
    ).toEqual([largeFile]);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after floe' }).text).toBe('');
    expect(diffRows(model.live(), await floeRows(dir), { actual: 'floe after floe' }).text).toBe('');
    expect(await javaIceberg.count(dir)).toBe(model.live().length);
  }, 300_000);

  it("Java reads DVs written by floe's Puffin writer (shared Puffin file, replaced DV) as floe does", async (ctx) => {
    if (!java.ok) skipLoudly(ctx, `java oracle unavailable: ${java.reason}`);
    const t = await TestTable.create({ formatVersion: 3, partitioned: false });
    try {
      let v = 0n;
      const row = (id: number): Row => [BigInt(id), null, null, `r${id}`, ++v];
      await t.append(Array.from({ length: 70_000 }, (_, i) => row(i))); // positions past 65535: two Roaring containers
      await t.append([row(100_000), row(100_001), row(100_002)]);
      const files = (await tableModel(t.dir)).dataFiles;
      const big = files.find((f) => f.recordCount === 70_000)!.path;
      const little = files.find((f) => f.recordCount === 3)!.path;
      await commitDeletionVectors(t, [
        { file: big, positions: [0, 65_535, 65_536, 69_999] },
        { file: little, positions: [1] },
      ]);
      await commitDeletionVectors(t, [{ file: big, positions: Array.from({ length: 5000 }, (_, i) => 10_000 + i) }]); // a bitmap container
      const expected = t.model.expected().length;
      expect((await t.scan()).length).toBe(expected);
      expect(await javaIceberg.count(t.dir)).toBe(expected);
    } finally {
      t.dispose();
    }
  }, 300_000);
});
