/**
 * Iceberg compaction against the reference engines. Each table is written by Java Iceberg, compacted by
 * `floe compact` (tiered, then — after Java appends and deletes on top — bin-pack), and read back by
 * Java Iceberg, PyIceberg, DuckDB and floe's own scan. Every reader must return the rows tracked by hand
 * from the scripted operations (RowModel), time travel must still see the old rows, and the upsert table
 * must have no equality delete left that applies to rewritten data.
 *
 * An oracle that is unavailable, or cannot read a table feature (PyIceberg and equality deletes), is
 * skipped LOUDLY (console.warn + vitest skip), never passed silently.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { FloeError } from '../../util/errors.js';
import {
  type Availability,
  type CanonicalRow,
  type ColumnSpec,
  type IcebergOp,
  type IcebergTableSpec,
  type IcebergWriteResult,
  type InputRow,
  diffRows,
  duckdb,
  javaIceberg,
  pyiceberg,
} from '../oracles/index.js';
import {
  RowModel,
  applicableEqDeletes,
  floeCompactCli,
  floeRows,
  skipLoudly,
  tableModel,
  type CliReport,
} from './helpers.js';

const avail: Record<'java' | 'pyiceberg' | 'duckdb', Availability> = {
  java: await javaIceberg.available(),
  pyiceberg: await pyiceberg.available(),
  duckdb: await duckdb.available(),
};
for (const [name, a] of Object.entries(avail))
  if (!a.ok) console.warn(`\n!!! SKIPPED: ${name} oracle unavailable: ${a.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-compact-interop-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// ------------------------------------------------------------------ data

const TYPES: Record<string, string> = {
  id: 'long',
  dt: 'date',
  cat: 'string',
  qty: 'int',
  price: 'decimal(38,10)',
  ts: 'timestamp',
  tstz: 'timestamptz',
  ok: 'boolean',
  raw: 'binary',
  score: 'double',
};
const SCHEMA: ColumnSpec[] = Object.entries(TYPES).map(([name, type]) => ({
  name,
  type,
  required: name === 'id' || name === 'dt',
}));
const DAYS = ['2024-01-01', '2024-01-02', '2024-01-03'];

/** Deterministic row with awkward values; `version` changes the non-key columns (for upserts). */
function row(id: number, version = 0): InputRow {
  const v = id * 7 + version * 1000;
  return {
    id: String(id),
    dt: DAYS[id % DAYS.length]!,
    cat: v % 5 === 0 ? null : `c${v % 3}${version ? '-v' + version : ''}`,
    qty: v % 11 === 0 ? null : v - 40,
    price: v % 2 ? `${v}.0000000001` : `-${v}98765432109876543210.5`,
    ts:
      v % 3
        ? `1969-12-31T23:59:59.${String(v % 1_000_000).padStart(6, '0')}`
        : `2024-02-29T12:00:00.${String(v % 1000).padStart(6, '0')}`,
    tstz: `2024-01-01T01:02:03.${String(v % 1000).padStart(6, '0')}+05:30`,
    ok: v % 2 === 0,
    raw: v % 4 === 0 ? '' : 'ff00' + (v % 256).toString(16).padStart(2, '0'),
    score: v % 6 === 0 ? null : v / 8,
  };
}
const rows = (from: number, n: number, version = 0) => Array.from({ length: n }, (_, i) => row(from + i, version));
const key = (id: number) => ({ id: String(id), dt: row(id).dt as string });

// ------------------------------------------------------------------ oracle readers

type Reader = {
  name: 'java' | 'pyiceberg' | 'duckdb';
  read: (t: string, o?: { snapshotId?: string }) => Promise<CanonicalRow[]>;
};
const READERS: Reader[] = [
  { name: 'java', read: (t, o) => javaIceberg.read(t, o) },
  { name: 'pyiceberg', read: (t, o) => pyiceberg.read(t, o) },
  { name: 'duckdb', read: (t, o) => duckdb.read(t, o) },
];

async function readOrSkip(
  ctx: TestContext,
  reader: Reader,
  table: string,
  snapshotId?: string,
): Promise<CanonicalRow[]> {
  if (!avail[reader.name].ok) skipLoudly(ctx, `${reader.name} unavailable: ${avail[reader.name].reason}`);
  try {
    return await reader.read(table, snapshotId === undefined ? {} : { snapshotId });
  } catch (e) {
    if (e instanceof FloeError && e.kind === 'Unsupported')
      skipLoudly(ctx, `${reader.name} cannot read this table: ${e.message.slice(0, 300)}`);
    throw e;
  }
}

function expectSame(expected: CanonicalRow[], actual: CanonicalRow[], who: string): void {
  const exp = expected;
  const d = diffRows(exp, actual, { expected: 'hand-tracked rows', actual: who });
  expect(d.text, d.text).toBe('');
}

// ------------------------------------------------------------------ the scenario

interface Scenario {
  name: string;
  spec: IcebergTableSpec;
  /** Key columns for equality deletes issued on top after compaction. */
  keyFields: string[];
  /** Ops Java applies on top of the compacted table (then bin-pack runs). */
  onTop: IcebergOp[];
  /** The table is an upsert stream: check no equality delete still applies to rewritten data. */
  upsertStream?: boolean;
}

/** Applies scripted ops to the hand model, exactly as the Iceberg spec says they change live rows. */
function applyToModel(model: RowModel, ops: IcebergOp[], keyFields: string[]): void {
  for (const op of ops) {
    if (op.op === 'append') model.append(op.rows);
    else if (op.op === 'upsert') model.upsert(op.rows, op.fields ?? keyFields);
    else if (op.op === 'delete-eq') model.deleteKeys(op.rows, op.fields ?? keyFields);
    else if (op.op === 'delete-pos') model.deleteWhere(Array.isArray(op.where) ? op.where : [op.where]);
    else throw new Error(`op ${op.op} not modelled`);
  }
}

function scenario(s: Scenario): void {
  describe(s.name, () => {
    const dir = path.join(work, s.name.replace(/\W+/g, '-'));
    const model = new RowModel(TYPES);
    let written: IcebergWriteResult | undefined;
    let firstRows: CanonicalRow[] = [];
    let beforeCompaction: CanonicalRow[] = [];
    let tiered: CliReport | undefined;
    let binpack: CliReport | undefined;

    const need = <T>(ctx: TestContext, v: T | undefined, what: string): T => {
      if (v === undefined)
        skipLoudly(
          ctx,
          avail.java.ok ? `${what} did not happen (an earlier step failed)` : `java unavailable: ${avail.java.reason}`,
        );
      return v;
    };

    beforeAll(async () => {
      if (!avail.java.ok) return;
      written = await javaIceberg.write(dir, s.spec);
      const ops = s.spec.ops ?? [];
      applyToModel(model, ops.slice(0, 1), s.keyFields);
      firstRows = model.live();
      applyToModel(model, ops.slice(1), s.keyFields);
      beforeCompaction = model.live();
    }, 300_000);

    it('floe scan of the Java-written table matches the hand-tracked rows', async (ctx) => {
      need(ctx, written, 'java write');
      expectSame(beforeCompaction, await floeRows(dir), 'floe scan before compaction');
    });

    it('floe compact --strategy tiered commits a replace snapshot and keeps every row', async (ctx) => {
      need(ctx, written, 'java write');
      const { report, exitCode } = await floeCompactCli([
        dir,
        '--strategy',
        'tiered',
        '-o',
        'self-optimizing.minor.trigger.file-count=2',
      ]);
      expect(report.failedTasks, JSON.stringify(report.failedTasks)).toEqual([]);
      expect(exitCode).toBe(0);
      expect(report.snapshots.length).toBeGreaterThanOrEqual(1);
      expect(report.after!.dataFiles).toBeLessThan(report.before.dataFiles);
      // floe's own invariant: live rows after == live rows before
      expectSame(beforeCompaction, await floeRows(dir), 'floe scan after tiered');
      tiered = report;
    });

    if (s.upsertStream) {
      it('after minor optimizing no equality delete applies to rewritten data', async (ctx) => {
        const report = need(ctx, tiered, 'tiered compaction');
        const m = await tableModel(dir);
        const rewritten = m.dataFiles.filter((f) => report.snapshots.includes(String(f.snapshotId)));
        expect(rewritten.length).toBeGreaterThan(0);
        for (const f of rewritten) {
          const still = applicableEqDeletes(m, f);
          expect(
            still.map((d) => d.path),
            `eq deletes still applying to ${f.path}`,
          ).toEqual([]);
        }
        // minor optimizing covered every partition with equality deletes here: none are left at all
        expect(m.deleteFiles.filter((d) => d.content === 'equality-deletes').map((d) => d.path)).toEqual([]);
      });
    }

    for (const reader of READERS) {
      it(`${reader.name} reads the tiered-compacted table as before`, async (ctx) => {
        need(ctx, tiered, 'tiered compaction');
        expectSame(beforeCompaction, await readOrSkip(ctx, reader, dir), `${reader.name} after tiered`);
      });
    }

    it('time travel: java reads the pre-compaction snapshot, floe and duckdb the first snapshot', async (ctx) => {
      need(ctx, tiered, 'tiered compaction');
      const w = written!;
      const last = w.currentSnapshotId!;
      const first = w.ops[0]!.snapshotId!;
      expectSame(firstRows, await floeRows(dir, first), 'floe @first');
      expectSame(beforeCompaction, await floeRows(dir, last), 'floe @pre-compaction');
      expectSame(beforeCompaction, await readOrSkip(ctx, READERS[0]!, dir, last), 'java @pre-compaction');
      expectSame(firstRows, await readOrSkip(ctx, READERS[2]!, dir, first), 'duckdb @first');
    });

    it('java appends and deletes on top of the compacted table; floe bin-pack keeps the rows', async (ctx) => {
      need(ctx, tiered, 'tiered compaction');
      await javaIceberg.ops(dir, s.onTop);
      applyToModel(model, s.onTop, s.keyFields);
      expectSame(model.live(), await floeRows(dir), 'floe scan after java ops on top');
      const { report, exitCode } = await floeCompactCli([
        dir,
        '--strategy',
        'binpack',
        '-o',
        'min-input-files=2',
        '-o',
        'delete-file-threshold=1',
      ]);
      expect(report.failedTasks, JSON.stringify(report.failedTasks)).toEqual([]);
      expect(exitCode).toBe(0);
      expect(report.snapshots.length).toBe(1);
      expect(report.after!.dataFiles).toBeLessThan(report.before.dataFiles);
      expectSame(model.live(), await floeRows(dir), 'floe scan after binpack');
      binpack = report;
    });

    for (const reader of READERS) {
      it(`${reader.name} reads the bin-packed table`, async (ctx) => {
        need(ctx, binpack, 'bin-pack compaction');
        expectSame(model.live(), await readOrSkip(ctx, reader, dir), `${reader.name} after binpack`);
      });
    }
  });
}

// ------------------------------------------------------------------ tables

scenario({
  name: 'unpartitioned v2, many small appends',
  keyFields: ['id'],
  spec: {
    formatVersion: 2,
    schema: SCHEMA,
    ops: [
      ...Array.from({ length: 10 }, (_, i): IcebergOp => ({ op: 'append', rows: rows(i * 4 + 1, 4) })),
      { op: 'delete-pos', where: [{ id: '3' }, { id: '22' }] },
    ],
  },
  onTop: [
    { op: 'append', rows: rows(101, 3) },
    { op: 'delete-eq', rows: [{ id: '5' }, { id: '102' }], fields: ['id'] },
    { op: 'delete-pos', where: { id: '7' } },
  ],
});

scenario({
  name: 'partitioned v2 upsert stream (equality + position deletes)',
  keyFields: ['id', 'dt'],
  upsertStream: true,
  spec: {
    formatVersion: 2,
    schema: SCHEMA,
    partitionSpec: [
      { source: 'dt', transform: 'day' },
      { source: 'id', transform: 'bucket[2]' },
    ],
    identifierFields: ['id', 'dt'],
    ops: [
      { op: 'append', rows: rows(1, 6) },
      { op: 'append', rows: rows(7, 6) },
      { op: 'upsert', rows: [row(2, 1), row(9, 1)] },
      { op: 'upsert', rows: [row(2, 2), row(4, 1), row(13, 0)] },
      { op: 'delete-eq', rows: [key(5)] },
      { op: 'upsert', rows: [row(11, 1)] },
      { op: 'delete-pos', where: { id: '8' } },
      { op: 'upsert', rows: [row(4, 2), row(6, 1)] },
    ],
  },
  onTop: [
    { op: 'upsert', rows: [row(1, 5), row(14, 0)] },
    { op: 'delete-eq', rows: [key(3)] },
    { op: 'delete-pos', where: { id: '10' } },
  ],
});

scenario({
  name: 'partitioned v3 (deletion vectors, equality deletes, row lineage)',
  keyFields: ['id', 'dt'],
  spec: {
    formatVersion: 3,
    schema: SCHEMA,
    partitionSpec: [{ source: 'dt', transform: 'day' }],
    identifierFields: ['id', 'dt'],
    ops: [
      { op: 'append', rows: rows(1, 5) },
      { op: 'append', rows: rows(6, 5) },
      { op: 'append', rows: rows(11, 5) },
      { op: 'delete-pos', where: [{ id: '2' }, { id: '12' }] },
      { op: 'upsert', rows: [row(4, 1), row(7, 1)] },
      { op: 'delete-pos', where: { id: '9' } },
    ],
  },
  onTop: [
    { op: 'append', rows: rows(40, 3) },
    { op: 'delete-pos', where: [{ id: '41' }, { id: '1' }] },
    { op: 'upsert', rows: [row(6, 3)] },
  ],
});
