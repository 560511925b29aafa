/**
 * Issue 14.2 against the reference engines: Java Iceberg writes a v3 table with a larger data file, small
 * ones, equality deletes, and DVs of several files in one Puffin file. `floe compact` (tiered, converting
 * at every minor) turns the equality deletes of the file it does not rewrite into a deletion vector merged
 * with that file's Java-written DV. Java (and DuckDB, where its iceberg extension reads v3 DVs) must read
 * exactly the hand-tracked rows; Java then appends and deletes on top and still reads what it should.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type ColumnSpec, type InputRow, diffRows, duckdb, javaIceberg } from '../oracles/index.js';
import { RowModel, floeCompactCli, floeRows, skipLoudly, tableModel } from './helpers.js';

const java = await javaIceberg.available();
if (!java.ok) console.warn(`\n!!! SKIPPED: java oracle unavailable: ${java.reason}\n`);
const duck = await duckdb.available();

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-v3-eq-dv-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { id: 'long', s: 'string' };
const SCHEMA: ColumnSpec[] = [
  { name: 'id', type: 'long', required: true },
  { name: 's', type: 'string', required: false },
];

describe('v3 equality→position conversion writes deletion vectors Java reads (issue 14.2)', () => {
  const dir = path.join(work, 'eq-dv');
  const model = new RowModel(TYPES);
  let compacted = false;

  it('floe converts the equality deletes of a Java v3 table into DVs merged with Java’s; Java reads the same rows', async (ctx) => {
    if (!java.ok) skipLoudly(ctx, `java oracle unavailable: ${java.reason}`);
    const noise = (i: number) =>
      [1, 2, 3].map((k) => (Math.imul(i + k * 7919, 2654435761) >>> 0).toString(36)).join('');
    const large: InputRow[] = Array.from({ length: 8000 }, (_, i) => ({ id: String(i), s: `large-${noise(i)}` }));
    const small = (k: number): InputRow[] => [
      { id: String(10_000 + 2 * k), s: 'x' },
      { id: String(10_001 + 2 * k), s: 'x' },
    ];
    await javaIceberg.write(dir, {
      formatVersion: 3,
      schema: SCHEMA,
      identifierFields: ['id'],
      ops: [
        { op: 'append', rows: large },
        ...[0, 1, 2, 3].map((k) => ({ op: 'append' as const, rows: small(k) })),
        { op: 'delete-pos', where: [{ id: '11' }, { id: '4000' }, { id: '10003' }] },
        { op: 'delete-eq', rows: [{ id: '10000' }, { id: '7' }, { id: '5000' }], fields: ['id'] },
      ],
    });
    model.append(large);
    for (const k of [0, 1, 2, 3]) model.append(small(k));
    model.deleteWhere([{ id: '11' }, { id: '4000' }, { id: '10003' }]);
    model.deleteKeys([{ id: '10000' }, { id: '7' }, { id: '5000' }], ['id']);

    const before = await tableModel(dir);
    const largeFile = before.dataFiles.find((f) => f.recordCount === 8000)!.path;
    const oldDv = before.deleteFiles.find((d) => d.content === 'deletion-vector' && d.referencedDataFile === largeFile);
    expect(oldDv, 'Java wrote a DV for the larger file').toBeDefined();
    expect(before.deleteFiles.some((d) => d.content === 'equality-deletes')).toBe(true);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java before' }).text).toBe('');

    const { report, exitCode } = await floeCompactCli([
      dir,
      '--target-size',
      '256KB',
      '--force',
      '--option',
      'self-optimizing.minor.eq-to-pos.delete-ratio=-1',
    ]);
    expect(exitCode).toBe(0);
    const tasks = (report as unknown as { tasks: { kind: string; outcome: string; reason?: string }[] }).tasks;
    const eq = tasks.filter((t) => t.kind === 'eq-to-pos');
    expect(eq.length, 'an eq→pos task was planned').toBeGreaterThan(0);
    expect(
      eq.map((t) => t.outcome),
      'eq→pos tasks committed (no longer skipped on v3)',
    ).toEqual(eq.map(() => 'committed'));
    compacted = true;

    const after = await tableModel(dir);
    const dvs = after.deleteFiles.filter((d) => d.content === 'deletion-vector');
    const per = new Map<string, number>();
    for (const d of dvs)
      if (d.content === 'deletion-vector') per.set(d.referencedDataFile, (per.get(d.referencedDataFile) ?? 0) + 1);
    expect(
      [...per].filter(([, n]) => n > 1),
      'at most one DV per data file',
    ).toEqual([]);
    const largeDv = dvs.find((d) => d.content === 'deletion-vector' && d.referencedDataFile === largeFile);
    expect(largeDv, 'the larger file has a DV').toBeDefined();
    expect(largeDv!.path, 'written by floe (the merged DV), not Java’s').not.toBe(oldDv!.path);
    expect(largeDv!.recordCount, 'old positions 11, 4000 ∪ equality matches 7, 5000').toBe(4);
    expect(
      after.deleteFiles.filter((d) => d.content === 'equality-deletes'),
      'equality deletes converted away',
    ).toEqual([]);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after floe' }).text).toBe('');
    expect(diffRows(model.live(), await floeRows(dir), { actual: 'floe after floe' }).text).toBe('');
  }, 300_000);

  it('DuckDB reads the converted table like Java (where its iceberg extension reads v3 deletion vectors)', async (ctx) => {
    if (!compacted) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
    if (!duck.ok) skipLoudly(ctx, `duckdb unavailable: ${duck.reason}`);
    let rows;
    try {
      rows = await duckdb.read(dir);
    } catch (e) {
      skipLoudly(
        ctx,
        `DuckDB's iceberg extension cannot read this v3 table (engine limitation): ${(e as Error).message.slice(0, 400)}`,
      );
    }
    expect(diffRows(model.live(), rows, { actual: 'DuckDB after floe' }).text).toBe('');
  }, 300_000);

  it('Java appends and deletes on top of floe’s DVs and reads what it should', async (ctx) => {
    if (!compacted) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
    await javaIceberg.append(dir, [{ id: '20000', s: 'new' }]);
    model.append([{ id: '20000', s: 'new' }]);
    // Java's position delete on the larger file merges into floe's DV (one DV per file: Java replaces it)
    await javaIceberg.delete(dir, { mode: 'pos', where: [{ id: '12' }, { id: '20000' }] });
    model.deleteWhere([{ id: '12' }, { id: '20000' }]);
    await javaIceberg.delete(dir, { mode: 'eq', rows: [{ id: '13' }], fields: ['id'] });
    model.deleteKeys([{ id: '13' }], ['id']);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after its writes' }).text).toBe('');
    expect(diffRows(model.live(), await floeRows(dir), { actual: 'floe after Java’s writes' }).text).toBe('');
    const m = await tableModel(dir);
    const per = new Map<string, number>();
    for (const d of m.deleteFiles)
      if (d.content === 'deletion-vector') per.set(d.referencedDataFile, (per.get(d.referencedDataFile) ?? 0) + 1);
    expect(
      [...per].filter(([, n]) => n > 1),
      'at most one DV per data file',
    ).toEqual([]);
    // and floe compacts again on top of that
    const { exitCode } = await floeCompactCli([
      dir,
      '--target-size',
      '256KB',
      '--force',
      '--option',
      'self-optimizing.minor.eq-to-pos.delete-ratio=-1',
    ]);
    expect(exitCode).toBe(0);
    expect(diffRows(model.live(), await javaIceberg.read(dir), { actual: 'Java after a second compaction' }).text).toBe(
      '',
    );
  }, 300_000);
});
