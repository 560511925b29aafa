/**
 * Nested and wide-primitive Iceberg tables against the reference engines. A PyIceberg-written v2 table
 * (pyarrow's large_list / large_string layout) with struct, list<long>, map<string,struct>, list<struct<list>>,
 * uuid, fixed, decimal(38), binary and a schema evolution that adds a field inside the struct and a new
 * struct column, is compacted by `floe compact` (tiered, then bin-pack after a Java append on top) and read
 * back row for row by Java Iceberg, PyIceberg and DuckDB. Expected rows are PyIceberg's read of the table
 * before floe touched it (the writer reading its own data, independent of floe).
 *
 * A second scenario covers v3-only types PyIceberg 0.12 cannot write (it refuses v3 metadata): a Java-written
 * v3 table with timestamp_ns / timestamptz_ns / uuid / fixed / decimal(38) / binary.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { FloeError } from '../../util/errors.js';
import {
  type Availability,
  type CanonicalRow,
  type ColumnSpec,
  diffRows,
  duckdb,
  javaIceberg,
  pyiceberg,
  repoRoot,
} from '../oracles/index.js';
import type { Field, FieldType } from '../../model/index.js';
import { floeCompactCli, skipLoudly, tableModel } from '../iceberg-compaction/helpers.js';
import { icebergMetricsFromFooter, readParquetFooter } from '../../connectors/formats/parquet/index.js';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const avail: Record<'java' | 'pyiceberg' | 'duckdb', Availability> = {
  java: await javaIceberg.available(),
  pyiceberg: await pyiceberg.available(),
  duckdb: await duckdb.available(),
};
for (const [name, a] of Object.entries(avail))
  if (!a.ok) console.warn(`\n!!! SKIPPED: ${name} oracle unavailable: ${a.reason}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-nested-interop-'));
afterAll(() => {
  if (!process.env.FLOE_KEEP_WORK) rmSync(work, { recursive: true, force: true });
});

const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
const here = path.join(repoRoot, 'integration/iceberg-nested');

function runPy(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(python, ['-B', ...args], { cwd: here, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', (e) => resolve({ code: -1, stdout: '', stderr: String(e) }));
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

type Engine = 'java' | 'pyiceberg' | 'duckdb';

/** Live rows by one engine, nested values rendered as the Java oracle renders them; loud skip on an engine limitation. */
async function readBy(ctx: TestContext, engine: Engine, table: string): Promise<CanonicalRow[]> {
  if (!avail[engine].ok) skipLoudly(ctx, `${engine} unavailable: ${avail[engine].reason}`);
  if (engine === 'java') {
    try {
      return await javaIceberg.read(table);
    } catch (e) {
      if (e instanceof FloeError && e.kind === 'Unsupported')
        skipLoudly(ctx, `java cannot read this table: ${e.message.slice(0, 300)}`);
      throw e;
    }
  }
  const r = await runPy([path.join(here, 'read_nested.py'), engine, table]);
  if (r.code === 3)
    skipLoudly(ctx, `${engine} cannot read this table (engine limitation): ${r.stderr.trim().slice(0, 400)}`);
  if (r.code !== 0)
    throw new Error(`read_nested.py ${engine} ${table} failed (exit ${r.code}): ${r.stderr.slice(-3000)}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as CanonicalRow);
}

function expectSame(expected: CanonicalRow[], actual: CanonicalRow[], who: string): void {
  const d = diffRows(expected, actual, { expected: 'rows before compaction', actual: who });
  expect(d.text, d.text).toBe('');
}

const ENGINES: Engine[] = ['java', 'pyiceberg', 'duckdb'];

describe('PyIceberg-written v2 table with nested columns (large_list / large_string files)', () => {
  const dir = path.join(work, 'py-nested');
  let expected: CanonicalRow[] | undefined;
  let tieredDone = false;
  let appended: CanonicalRow[] | undefined;
  let binpackDone = false;
  /** PyIceberg's own view of the table after Java's append, before floe's bin-pack (see below). */
  let pyAfterAppend: CanonicalRow[] | undefined;

  beforeAll(async () => {
    if (!avail.pyiceberg.ok) return;
    const w = await runPy([path.join(here, 'write_nested.py'), dir, '2']);
    if (w.code !== 0) throw new Error(`write_nested.py failed: ${w.stderr.slice(-3000)}`);
    const r = await runPy([path.join(here, 'read_nested.py'), 'pyiceberg', dir]);
    if (r.code !== 0) throw new Error(`read_nested.py failed: ${r.stderr.slice(-3000)}`);
    expected = r.stdout
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as CanonicalRow);
  }, 300_000);

  const need = (ctx: TestContext, ok: unknown, what: string) => {
    if (!ok)
      skipLoudly(
        ctx,
        avail.pyiceberg.ok
          ? `${what} did not happen (an earlier step failed)`
          : `pyiceberg unavailable: ${avail.pyiceberg.reason}`,
      );
  };

  it('the PyIceberg table has the rows the writer appended (34 rows, 6 data files)', (ctx) => {
    need(ctx, expected, 'pyiceberg write');
    expect(expected!.length).toBe(34);
    // nested values are really there (not all null): a list<long> beyond 2^53 and a map of structs
    expect(expected!.some((r) => typeof r.tags === 'string' && /"46116860184273879\d\d"/.test(r.tags))).toBe(true);
    expect(expected!.some((r) => typeof r.attrs === 'string' && r.attrs.includes('"k2":{"x":'))).toBe(true);
  });

  for (const engine of ENGINES) {
    it(`${engine} reads the PyIceberg table like PyIceberg does (the oracles agree before floe)`, async (ctx) => {
      need(ctx, expected, 'pyiceberg write');
      const rows = await readBy(ctx, engine, dir);
      if (engine === 'java') {
        // pyarrow writes uuid as a bare FIXED_LEN_BYTE_ARRAY(16) (no UUID logical type); Java's reader then
        // returns byte[] — a PyIceberg-side defect floe's rewrite repairs (floe writes the annotation)
        console.warn(
          '\n!!! NOTE: java before compaction is compared without column u: PyIceberg files lack the UUID logical type\n',
        );
        const drop = (r: CanonicalRow) => {
          const { u: _u, ...rest } = r;
          return rest;
        };
        expectSame(expected!.map(drop), rows.map(drop), 'java before compaction (without u)');
        return;
      }
      expectSame(expected!, rows, `${engine} before compaction`);
    });
  }

  it('floe compact --strategy tiered rewrites every file (no "cannot read LargeList" failures)', async (ctx) => {
    need(ctx, expected, 'pyiceberg write');
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
    expect(report.rowsOut).toBe(report.rowsIn);
    tieredDone = true;
  });

  for (const engine of ENGINES) {
    it(`${engine} reads the tiered-compacted table row for row as before`, async (ctx) => {
      need(ctx, tieredDone, 'tiered compaction');
      expectSame(expected!, await readBy(ctx, engine, dir), `${engine} after tiered`);
    });
  }

  it('java appends on top of the compacted table (primitive columns set, nested ones null)', async (ctx) => {
    need(ctx, tieredDone, 'tiered compaction');
    if (!avail.java.ok) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    await javaIceberg.append(dir, [
      {
        id: '1000',
        name: 'from-java',
        d: '-1.0000000001',
        u: '0f0e0d0c-0b0a-0908-0706-050403020100',
        f: '01020304',
        bin: 'ff00',
        ts: '2030-05-06T07:08:09.123456',
      },
      { id: '1001', name: null },
    ]);
    const nulls = { s: null, tags: null, attrs: null, items: null, extra: null, tstz: null };
    appended = [
      ...expected!,
      {
        ...nulls,
        id: '1000',
        name: 'from-java',
        d: '-1.0000000001',
        u: '0f0e0d0c-0b0a-0908-0706-050403020100',
        f: '01020304',
        bin: 'ff00',
        ts: '2030-05-06T07:08:09.123456',
      },
      { ...nulls, id: '1001', name: null, d: null, u: null, f: null, bin: null, ts: null },
    ];
    expectSame(appended, await readBy(ctx, 'java', dir), 'java after its append');
    if (avail.pyiceberg.ok) pyAfterAppend = await readBy(ctx, 'pyiceberg', dir);
  });

  it("floe compact --strategy binpack then keeps every row, including Java's", async (ctx) => {
    need(ctx, appended, 'java append');
    const { report, exitCode } = await floeCompactCli([dir, '--strategy', 'binpack', '-o', 'min-input-files=2']);
    expect(report.failedTasks, JSON.stringify(report.failedTasks)).toEqual([]);
    expect(exitCode).toBe(0);
    expect(report.snapshots.length).toBe(1);
    expect(report.after!.dataFiles).toBe(1);
    binpackDone = true;
  });

  for (const engine of ENGINES) {
    it(`${engine} reads the bin-packed table row for row`, async (ctx) => {
      need(ctx, binpackDone, 'bin-pack compaction');
      const rows = await readBy(ctx, engine, dir);
      if (engine === 'pyiceberg') {
        // PyIceberg 0.12 reads a null map<_, struct> / list<struct> as empty — already in Java's own file,
        // before floe touched it — so PyIceberg is held to its own pre-bin-pack view of the same rows.
        console.warn(
          '\n!!! NOTE: pyiceberg 0.12 reads null map<_,struct> / list<struct> values as empty; compared with its own read before bin-pack\n',
        );
        expect(pyAfterAppend, 'pyiceberg read after the java append').toBeDefined();
        expectSame(pyAfterAppend!, rows, 'pyiceberg after bin-pack');
        return;
      }
      expectSame(appended!, rows, `${engine} after bin-pack`);
    });
  }
});

describe('Java-written v3 table with ns timestamps and wide primitives', () => {
  const dir = path.join(work, 'java-v3-ns');
  const SCHEMA: ColumnSpec[] = [
    { name: 'id', type: 'long', required: true },
    { name: 'tsns', type: 'timestamp_ns' },
    { name: 'tstzns', type: 'timestamptz_ns' },
    { name: 'u', type: 'uuid' },
    { name: 'fx', type: 'fixed[5]' },
    { name: 'd38', type: 'decimal(38,12)' },
    { name: 'bin', type: 'binary' },
    { name: 's', type: 'string' },
  ];
  const row = (i: number) => ({
    id: String(i),
    tsns:
      i % 4 === 3
        ? null
        : `20${10 + (i % 20)}-0${1 + (i % 9)}-1${i % 10}T0${i % 10}:1${i % 10}:2${i % 10}.${String(123456789 + i).padStart(9, '0')}`,
    tstzns: i % 5 === 4 ? null : `1969-12-31T23:59:59.${String(999999000 + i).padStart(9, '0')}+00:00`,
    u: i % 6 === 5 ? null : `${String(i).padStart(8, '0')}-0000-4000-8000-${String(i * 7919).padStart(12, '0')}`,
    fx: i % 3 === 2 ? null : `0${i % 10}0102ff${(i % 16).toString(16)}0`,
    d38:
      i % 7 === 6
        ? null
        : `${i % 2 ? '-' : ''}${12345678901234567890123456n + BigInt(i)}.${String(i).padStart(12, '0')}`,
    bin: i % 4 === 1 ? null : 'ab'.repeat(i % 5),
    s: `row-${i}-${'é'.repeat(i % 3)}`,
  });
  let expected: CanonicalRow[] | undefined;
  let done = false;

  beforeAll(async () => {
    if (!avail.java.ok) return;
    await javaIceberg.write(dir, {
      formatVersion: 3,
      schema: SCHEMA,
      ops: [0, 1, 2, 3].map((k) => ({
        op: 'append' as const,
        rows: Array.from({ length: 5 }, (_, j) => row(k * 5 + j)),
      })),
    });
    expected = await javaIceberg.read(dir);
  }, 300_000);

  it('floe compact --strategy binpack rewrites the v3 table', async (ctx) => {
    if (!expected) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    expect(expected!.length).toBe(20);
    expect(expected!.some((r) => typeof r.tsns === 'string' && /\.\d{9}$/.test(r.tsns))).toBe(true);
    const { report, exitCode } = await floeCompactCli([dir, '--strategy', 'binpack', '-o', 'min-input-files=2']);
    expect(report.failedTasks, JSON.stringify(report.failedTasks)).toEqual([]);
    expect(exitCode).toBe(0);
    expect(report.after!.dataFiles).toBe(1);
    done = true;
  });

  it('java reads the compacted v3 table row for row (ns precision intact)', async (ctx) => {
    if (!done) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
    expectSame(expected!, await javaIceberg.read(dir), 'java after bin-pack');
  });

  it('java appends on top of the compacted v3 table and reads everything', async (ctx) => {
    if (!done) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
    await javaIceberg.append(dir, [row(100)]);
    const after = await javaIceberg.read(dir);
    expect(after.length).toBe(21);
    expectSame(
      expected!,
      after.filter((r) => r.id !== '100'),
      'java after its append',
    );
  });

  for (const engine of ['pyiceberg', 'duckdb'] as const) {
    it(`${engine} reads the compacted v3 table like Java (where it supports v3 / ns timestamps)`, async (ctx) => {
      if (!done) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
      // DuckDB 1.5's iceberg extension rejects timestamptz_ns: readBy skips loudly with its error
      const rows = await readBy(ctx, engine, dir);
      expectSame(
        expected!,
        rows.filter((r) => r.id !== '100'),
        `${engine} after bin-pack`,
      );
    });
  }
});

describe('Java-written v2 table with nested values: compaction, Java appends nested rows, metrics like Java', () => {
  const dir = path.join(work, 'java-nested');
  const prim = (type: string) => type;
  const schemaJson = {
    type: 'struct',
    'schema-id': 0,
    fields: [
      { id: 1, name: 'id', required: true, type: prim('long') },
      {
        id: 2,
        name: 'p',
        required: false,
        type: {
          type: 'struct',
          fields: [
            { id: 20, name: 'a', required: false, type: 'int' },
            {
              id: 21,
              name: 'q',
              required: false,
              type: {
                type: 'struct',
                fields: [
                  { id: 22, name: 'deep', required: false, type: 'string' },
                  { id: 23, name: 'score', required: false, type: 'double' },
                ],
              },
            },
          ],
        },
      },
      {
        id: 3,
        name: 'tags',
        required: false,
        type: { type: 'list', 'element-id': 30, element: 'long', 'element-required': false },
      },
      {
        id: 4,
        name: 'attrs',
        required: false,
        type: {
          type: 'map',
          'key-id': 40,
          key: 'string',
          'value-id': 41,
          'value-required': false,
          value: {
            type: 'struct',
            fields: [
              { id: 42, name: 'x', required: false, type: 'double' },
              {
                id: 43,
                name: 'ys',
                required: false,
                type: { type: 'list', 'element-id': 44, element: 'string', 'element-required': false },
              },
            ],
          },
        },
      },
      {
        id: 5,
        name: 'items',
        required: false,
        type: {
          type: 'list',
          'element-id': 50,
          'element-required': true,
          element: {
            type: 'struct',
            fields: [
              { id: 51, name: 'k', required: false, type: 'string' },
              {
                id: 52,
                name: 'nums',
                required: false,
                type: { type: 'list', 'element-id': 53, element: 'int', 'element-required': false },
              },
            ],
          },
        },
      },
      { id: 6, name: 'u', required: false, type: 'uuid' },
      { id: 7, name: 'd', required: false, type: 'decimal(38,10)' },
      { id: 8, name: 'w', required: false, type: 'double' },
    ],
  };
  // no null map<_,struct> / list<struct> values here: PyIceberg 0.12 reads those as empty (see the first scenario)
  const row = (i: number) => ({
    id: String(i),
    p:
      i % 5 === 4
        ? null
        : { a: i % 3 === 0 ? null : i, q: i % 4 === 1 ? null : { deep: `d${i}é`, score: i % 7 === 0 ? 'NaN' : i / 4 } },
    tags: i % 6 === 5 ? null : [String(i), String(-i), String(2n ** 62n + BigInt(i))].slice(0, i % 4),
    attrs: Object.fromEntries(
      Array.from({ length: i % 3 }, (_, j) => [`k${j}`, { x: i + j / 2, ys: j ? [`y${j}`, null] : [] }]),
    ),
    items: Array.from({ length: i % 3 }, (_, j) => ({ k: `it${i}.${j}`, nums: [j, null, i].slice(0, (i + j) % 4) })),
    u: i % 5 === 2 ? null : `${String(i).padStart(8, '0')}-1111-4222-8333-${String(i * 31).padStart(12, '0')}`,
    d: i % 6 === 3 ? null : `${i % 2 ? '-' : ''}9999999999999999999999999999.${String(i).padStart(10, '0')}`,
    w: i % 8 === 7 ? 'NaN' : i * 1.25,
  });
  let before: CanonicalRow[] | undefined;
  let done = false;

  beforeAll(async () => {
    if (!avail.java.ok) return;
    await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: [],
      ...({ schemaJson } as object),
      ops: [0, 1, 2].map((k) => ({
        op: 'append' as const,
        rows: Array.from({ length: 6 }, (_, j) => row(k * 6 + j)) as never,
      })),
    } as never);
    before = await javaIceberg.read(dir);
  }, 300_000);

  /** Java assigns fresh ids at table creation: look them up by dotted name path (list element 'x.element', map 'x.key'/'x.value'). */
  const idsByPath = (fields: Field[]): Map<string, number> => {
    const out = new Map<string, number>();
    const walk = (prefix: string, id: number, t: FieldType): void => {
      out.set(prefix, id);
      if (t.kind === 'struct') for (const f of t.fields) walk(`${prefix}.${f.name}`, f.id, f.type);
      else if (t.kind === 'list') walk(`${prefix}.element`, t.elementId, t.element);
      else if (t.kind === 'map') {
        walk(`${prefix}.key`, t.keyId, t.key);
        walk(`${prefix}.value`, t.valueId, t.value);
      }
    };
    for (const f of fields) walk(f.name, f.id, f.type);
    return out;
  };
  const INSIDE_REPEATED = [
    'tags.element',
    'attrs.key',
    'attrs.value.x',
    'attrs.value.ys.element',
    'items.element.k',
    'items.element.nums.element',
  ];

  it('floe computes the same metrics from a Java-written nested file as Java wrote into its manifest', async (ctx) => {
    if (!before) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    expect(before!.length).toBe(18);
    const model = await tableModel(dir);
    const fields = model.schemas.find((x) => x.schemaId === model.currentSchemaId)!.fields;
    const ids = idsByPath(fields);
    // float/double leaves: Java takes counts from its value writer, which sees only rows whose parent structs are
    // non-null and records null count 0 (iceberg-core 1.10.1 DoubleFieldMetrics) — floe keeps the footer's counts
    // (all rows, real nulls), which can only make pruning more conservative; compared separately below
    const floats = new Set(['w', 'p.q.score'].map((x) => ids.get(x)!));
    const without = <T>(x: Map<number, T> | undefined) => new Map([...(x ?? [])].filter(([id]) => !floats.has(id)));
    expect(model.dataFiles.length).toBe(3);
    for (const df of model.dataFiles) {
      const local = df.path.startsWith('file:') ? fileURLToPath(df.path) : df.path;
      const footer = readParquetFooter(new Uint8Array(readFileSync(local)), df.path);
      const m = icebergMetricsFromFooter(footer, fields);
      const java = df.stats!;
      expect(m.columnSizes, 'column sizes').toEqual(java.columnSizes);
      expect(without(m.valueCounts), 'value counts').toEqual(without(java.valueCounts));
      expect(without(m.nullValueCounts), 'null counts').toEqual(without(java.nullValueCounts));
      expect(without(m.lowerBounds), 'lower bounds').toEqual(without(java.lowerBounds));
      expect(without(m.upperBounds), 'upper bounds').toEqual(without(java.upperBounds));
      for (const id of floats) {
        expect(m.valueCounts.get(id)! >= java.valueCounts!.get(id)!, `value count of float ${id}`).toBe(true);
        expect(m.valueCounts.get(id)! - m.nullValueCounts.get(id)!, `non-null values of float ${id}`).toBe(
          java.valueCounts!.get(id)! - java.nullValueCounts!.get(id)!,
        );
      }
      // Java kept nothing but sizes for leaves inside lists and maps — the rule floe follows
      for (const leaf of INSIDE_REPEATED) {
        const id = ids.get(leaf)!;
        expect(java.valueCounts?.has(id), `java value count of ${leaf}`).toBe(false);
        expect(java.lowerBounds?.has(id), `java bound of ${leaf}`).toBe(false);
        expect(java.columnSizes?.has(id), `java column size of ${leaf}`).toBe(true);
      }
      expect([...(java.nanValueCounts ?? new Map()).keys()].sort((a, b) => a - b)).toEqual(
        [...floats].sort((a, b) => a - b),
      );
    }
  });

  it('floe compact --strategy binpack rewrites the Java table; java, pyiceberg and duckdb read it row for row', async (ctx) => {
    if (!before) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    const { report, exitCode } = await floeCompactCli([dir, '--strategy', 'binpack', '-o', 'min-input-files=2']);
    expect(report.failedTasks, JSON.stringify(report.failedTasks)).toEqual([]);
    expect(exitCode).toBe(0);
    expect(report.after!.dataFiles).toBe(1);
    done = true;
    expectSame(before!, await javaIceberg.read(dir), 'java after bin-pack');
  });

  for (const engine of ['pyiceberg', 'duckdb'] as const) {
    it(`${engine} reads the compacted Java table like Java`, async (ctx) => {
      if (!done) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
      expectSame(before!, await readBy(ctx, engine, dir), `${engine} after bin-pack`);
    });
  }

  it("floe's own output file carries metrics by the same rules (sizes only inside lists/maps, NaN counts for floats)", async (ctx) => {
    if (!done) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
    const model = await tableModel(dir);
    const ids = idsByPath(model.schemas.find((x) => x.schemaId === model.currentSchemaId)!.fields);
    const out = model.dataFiles[0]!.stats!;
    for (const leaf of INSIDE_REPEATED) {
      expect(out.valueCounts?.has(ids.get(leaf)!), `value count of ${leaf}`).toBe(false);
      expect(out.columnSizes?.has(ids.get(leaf)!), `column size of ${leaf}`).toBe(true);
    }
    expect(out.valueCounts?.get(ids.get('p.q.deep')!)).toBe(18n);
    expect(out.lowerBounds?.get(ids.get('p.q.deep')!)).toBe('d0é');
    expect(out.nanValueCounts?.get(ids.get('w')!)).toBe(2n); // rows 7 and 15
    expect(out.nanValueCounts?.get(ids.get('p.q.score')!)).toBe(2n); // rows 0 and 7 (row 14 has p null)
  });

  it('java appends nested rows on top of the compacted table and reads everything', async (ctx) => {
    if (!done) skipLoudly(ctx, 'compaction did not happen (an earlier step failed)');
    await javaIceberg.append(dir, [row(100), row(101)] as never);
    const after = await javaIceberg.read(dir);
    expect(after.length).toBe(20);
    expectSame(
      before!,
      after.filter((r) => r.id !== '100' && r.id !== '101'),
      'java after its nested append',
    );
    const { report, exitCode } = await floeCompactCli([dir, '--strategy', 'binpack', '-o', 'min-input-files=2']);
    expect(report.failedTasks, JSON.stringify(report.failedTasks)).toEqual([]);
    expect(exitCode).toBe(0);
    expectSame(after, await javaIceberg.read(dir), 'java after the second bin-pack');
  });
});
