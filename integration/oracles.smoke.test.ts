/**
 * Smoke test of the reference engines: every writer's table is read back by every other available reader,
 * and all must agree with the live rows derived by hand from the write script (and so with each other).
 * An unavailable oracle, or a reader that cannot handle a table feature, is skipped LOUDLY
 * (console.warn 'SKIPPED: …' + vitest skip), never passed silently.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { FloeError } from '../util/errors.js';
import {
  type Availability,
  type CanonicalRow,
  type IcebergWriteResult,
  type InputRow,
  canonicalRow,
  diffRows,
  duckdb,
  javaIceberg,
  javaPaimon,
  oracleJar,
  pyiceberg,
  repoRoot,
} from './oracles/index.js';

const avail: Record<'java' | 'pyiceberg' | 'duckdb', Availability> = {
  java: await javaIceberg.available(),
  pyiceberg: await pyiceberg.available(),
  duckdb: await duckdb.available(),
};
for (const [name, a] of Object.entries(avail)) {
  if (!a.ok) console.warn(`SKIPPED: ${name} oracle unavailable: ${a.reason}`);
}

type IcebergReader = (table: string, opts?: { snapshotId?: string }) => Promise<CanonicalRow[]>;
const readers: { name: keyof typeof avail; read: IcebergReader }[] = [
  { name: 'java', read: (t, o) => javaIceberg.read(t, o) },
  { name: 'pyiceberg', read: (t, o) => pyiceberg.read(t, o) },
  { name: 'duckdb', read: (t, o) => duckdb.read(t, o) },
];

function skipLoudly(ctx: TestContext, why: string): never {
  console.warn(`SKIPPED: ${ctx.task.name}: ${why}`);
  ctx.skip(why);
  throw new Error('unreachable');
}

/** Reads with `reader`, turning "engine cannot read this feature" into a loud skip. */
async function readOrSkip(ctx: TestContext, reader: (typeof readers)[number], table: string, snapshotId?: string) {
  if (!avail[reader.name].ok) skipLoudly(ctx, `${reader.name} unavailable: ${avail[reader.name].reason}`);
  try {
    return await reader.read(table, snapshotId === undefined ? {} : { snapshotId });
  } catch (e) {
    if (e instanceof FloeError && e.kind === 'Unsupported')
      skipLoudly(ctx, `${reader.name} cannot read this table: ${e.message}`);
    throw e;
  }
}

function expectSame(expected: CanonicalRow[], actual: CanonicalRow[], who: string) {
  const d = diffRows(expected, actual, { expected: 'hand-derived', actual: who });
  expect(d.text, d.text).toBe('');
}

// -------------------------------------------------------------------------------------------- model

const ICE_TYPES: Record<string, string> = {
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
const ICE_SCHEMA = [
  { name: 'id', type: 'long', required: true },
  { name: 'dt', type: 'date', required: true },
  { name: 'cat', type: 'string' },
  { name: 'qty', type: 'int' },
  { name: 'price', type: 'decimal(38,10)' },
  { name: 'ts', type: 'timestamp' },
  { name: 'tstz', type: 'timestamptz' },
  { name: 'ok', type: 'boolean' },
  { name: 'raw', type: 'binary' },
  { name: 'score', type: 'double' },
];

/** Deterministic input row with awkward values (negative/huge decimals, pre-epoch and offset timestamps). */
function row(id: number, dt: string, over: Partial<InputRow> = {}): InputRow {
  return {
    id: String(id),
    dt,
    cat: id % 3 === 0 ? null : `cat-${id % 2}`,
    qty: id * 10,
    price: id % 2 ? `${id}.25` : `-${id}123456789012345678901234567.0000000001`,
    ts: id % 2 ? `1969-12-31T23:59:59.${String(id).padStart(6, '0')}` : `2024-02-29T12:00:00.00000${id % 10}`,
    tstz: `2024-01-01T01:02:03.00000${id % 10}+02:00`,
    ok: id % 2 === 0,
    raw: id % 4 === 0 ? '' : 'ff00' + id.toString(16).padStart(2, '0'),
    score: id % 5 === 0 ? null : id / 4,
    ...over,
  };
}

const expectedOf = (rows: InputRow[], types = ICE_TYPES) => rows.map((r) => canonicalRow(types, r));

// -------------------------------------------------------------------------------------------- tables

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-oracles-smoke-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('Java-written Iceberg v2 table (eq + pos deletes, partitioned)', () => {
  const dir = path.join(work, 'java-v2-eqpos');
  const first = [row(1, '2024-01-01'), row(2, '2024-01-01'), row(3, '2024-01-02'), row(4, '2024-01-02')];
  const second = [row(5, '2024-01-02'), row(6, '2024-01-03')];
  const upserted = row(3, '2024-01-02', { qty: 333, cat: 'upserted' });
  const late = row(7, '2024-01-01');
  // Hand-applied: 2 eq-deleted, 3 upserted, 5 position-deleted.
  const live = [row(1, '2024-01-01'), upserted, row(4, '2024-01-02'), row(6, '2024-01-03'), late];
  let result: IcebergWriteResult | undefined;

  beforeAll(async () => {
    if (!avail.java.ok) return;
    result = await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: ICE_SCHEMA,
      partitionSpec: [
        { source: 'dt', transform: 'day' },
        { source: 'id', transform: 'bucket[2]' },
      ],
      identifierFields: ['id', 'dt'],
      ops: [
        { op: 'append', rows: first },
        { op: 'append', rows: second },
        { op: 'delete-eq', rows: [{ id: '2', dt: '2024-01-01' }] },
        { op: 'upsert', rows: [upserted] },
        { op: 'delete-pos', where: { id: '5' } },
        { op: 'append', rows: [late] },
      ],
    });
  });

  it('java commits the scripted snapshots with the expected delete files', (ctx) => {
    if (!result) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    const s = result.ops.map((o) => o.summary ?? {});
    expect(result.ops.map((o) => o.operation)).toEqual(['append', 'append', 'delete', 'overwrite', 'delete', 'append']);
    expect(s[2]['added-equality-delete-files']).toBe('1');
    expect(s[3]['added-equality-delete-files']).toBe('1');
    expect(s[3]['added-data-files']).toBe('1');
    expect(s[4]['added-position-delete-files']).toBe('1');
    expect(Number(s[0]['added-data-files'])).toBeGreaterThanOrEqual(2); // one file per (day, bucket)
  });

  for (const reader of readers) {
    it(`${reader.name} reads the live rows`, async (ctx) => {
      if (!result) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
      expectSame(expectedOf(live), await readOrSkip(ctx, reader, result.metadataFile), reader.name);
    });
    it(`${reader.name} time-travels to the first snapshot`, async (ctx) => {
      if (!result) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
      const snap = result.ops[0].snapshotId!;
      expectSame(expectedOf(first), await readOrSkip(ctx, reader, result.metadataFile, snap), reader.name);
    });
  }
});

describe('Java-written Iceberg v2 table (position deletes only)', () => {
  const dir = path.join(work, 'java-v2-pos');
  const rows = Array.from({ length: 8 }, (_, i) => row(i + 1, `2024-03-0${(i % 3) + 1}`));
  const live = rows.filter((r) => !['2', '7', '8'].includes(String(r.id)));
  let result: IcebergWriteResult | undefined;

  beforeAll(async () => {
    if (!avail.java.ok) return;
    result = await javaIceberg.write(dir, {
      formatVersion: 2,
      schema: ICE_SCHEMA,
      partitionSpec: [{ source: 'id', transform: 'bucket[2]' }],
      ops: [
        { op: 'append', rows: rows.slice(0, 4) },
        { op: 'append', rows: rows.slice(4) },
        { op: 'delete-pos', where: [{ id: '2' }, { id: '7' }] },
        { op: 'delete-pos', where: { id: '8' } },
      ],
    });
  });

  for (const reader of readers) {
    it(`${reader.name} reads the live rows`, async (ctx) => {
      if (!result) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
      expectSame(expectedOf(live), await readOrSkip(ctx, reader, result.metadataFile), reader.name);
    });
  }
});

describe('Java-written Iceberg v3 table (deletion vectors)', () => {
  const dir = path.join(work, 'java-v3-dv');
  const rows = Array.from({ length: 5 }, (_, i) => row(i + 1, '2024-04-01'));
  const live = rows.filter((r) => !['1', '4'].includes(String(r.id)));
  let result: IcebergWriteResult | undefined;

  beforeAll(async () => {
    if (!avail.java.ok) return;
    result = await javaIceberg.write(dir, {
      formatVersion: 3,
      schema: ICE_SCHEMA,
      ops: [
        { op: 'append', rows },
        { op: 'delete-pos', where: { id: '1' } },
        { op: 'delete-pos', where: { id: '4' } }, // merges into the data file's existing DV
      ],
    });
  });

  it('the second delete replaces the first DV (one DV per data file)', (ctx) => {
    if (!result) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    expect(result.ops[2].summary?.['removed-dvs']).toBe('1');
    expect(result.ops[2].summary?.['total-delete-files']).toBe('1');
  });

  for (const reader of readers) {
    it(`${reader.name} reads the live rows`, async (ctx) => {
      if (!result) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
      expectSame(expectedOf(live), await readOrSkip(ctx, reader, result.metadataFile), reader.name);
    });
  }
});

describe('PyIceberg-written Iceberg v2 table (appends + copy-on-write delete)', () => {
  const dir = path.join(work, 'pyiceberg-v2');
  const batches = [
    [row(1, '2024-05-01'), row(2, '2024-05-01')],
    [row(3, '2024-05-02'), row(4, '2024-05-02')],
    [row(5, '2024-05-03')],
  ];
  const live = batches.flat().filter((r) => r.id !== '4');
  let result: IcebergWriteResult | undefined;

  beforeAll(async () => {
    if (!avail.pyiceberg.ok) return;
    result = await pyiceberg.write(dir, {
      formatVersion: 2,
      schema: ICE_SCHEMA,
      partitionSpec: [{ source: 'dt', transform: 'identity' }],
      ops: [...batches.map((rows) => ({ op: 'append' as const, rows })), { op: 'delete', where: { id: '4' } }],
    });
  });

  it('pyiceberg wrote one data file per partition per append', (ctx) => {
    if (!result) skipLoudly(ctx, `pyiceberg unavailable: ${avail.pyiceberg.reason}`);
    expect(result.ops.slice(0, 3).map((o) => o.summary?.['added-data-files'])).toEqual(['1', '1', '1']);
  });

  for (const reader of readers) {
    it(`${reader.name} reads the live rows`, async (ctx) => {
      if (!result) skipLoudly(ctx, `pyiceberg unavailable: ${avail.pyiceberg.reason}`);
      expectSame(expectedOf(live), await readOrSkip(ctx, reader, result.metadataFile), reader.name);
    });
  }
});

describe('Java-written Paimon primary-key tables (merge engines)', () => {
  const warehouse = path.join(work, 'paimon');
  const types = { id: 'BIGINT', p: 'STRING', v: 'INT', amount: 'DECIMAL(20, 2)', note: 'STRING', ts: 'TIMESTAMP(6)' };
  const fields = Object.entries(types).map(([name, type]) => ({ name, type }));
  const base = { fields, primaryKeys: ['id', 'p'], partitionKeys: ['p'] };
  const opts = (engine: string, extra: Record<string, string> = {}) => ({
    bucket: '2',
    'merge-engine': engine,
    'write-only': 'true',
    ...extra,
  });
  const r = (id: number, p: string, v: number | null, amount: string | null, note: string | null): InputRow => ({
    id: String(id),
    p,
    v,
    amount,
    note,
    ts: v === null ? null : `2024-06-0${(id % 9) + 1}T00:00:0${v % 10}.123456`,
  });
  const commits = [
    [r(1, 'a', 1, '1.50', 'one'), r(2, 'a', 2, '2.00', 'two'), r(3, 'b', 3, '3.00', 'three')],
    [r(1, 'a', 11, '0.25', null), r(4, 'b', 4, '4.00', 'four')],
    [r(2, 'a', 22, '10.00', 'two-again')],
  ];
  const asChanges = (rows: InputRow[]) => rows.map((row) => ({ kind: '+I' as const, row }));
  let written = false;

  beforeAll(async () => {
    if (!avail.java.ok) return;
    await javaPaimon.writeMany(warehouse, [
      {
        ...base,
        table: 'dedup',
        options: opts('deduplicate'),
        commits: [...commits.map(asChanges), [{ kind: '-D', row: r(3, 'b', null, null, null) }]],
      },
      { ...base, table: 'first_row', options: opts('first-row'), commits: commits.map(asChanges) },
      // Without write-only the writer's lookup compaction runs, making first-row data visible.
      {
        ...base,
        table: 'first_row_compacted',
        options: { bucket: '2', 'merge-engine': 'first-row' },
        commits: commits.map(asChanges),
      },
      { ...base, table: 'partial', options: opts('partial-update'), commits: commits.map(asChanges) },
      {
        ...base,
        table: 'agg',
        options: opts('aggregation', {
          'fields.amount.aggregate-function': 'sum',
          'fields.v.aggregate-function': 'max',
        }),
        commits: commits.map(asChanges),
      },
    ]);
    written = true;
  });

  // Expected live rows, merged by hand per engine.
  const expected: Record<string, InputRow[]> = {
    dedup: [r(1, 'a', 11, '0.25', null), r(2, 'a', 22, '10.00', 'two-again'), r(4, 'b', 4, '4.00', 'four')],
    // first-row hides level-0 files from readers until compacted (Paimon fact sheet, lookup section);
    // write-only never compacts, so nothing is visible yet.
    first_row: [],
    first_row_compacted: [
      r(1, 'a', 1, '1.50', 'one'),
      r(2, 'a', 2, '2.00', 'two'),
      r(3, 'b', 3, '3.00', 'three'),
      r(4, 'b', 4, '4.00', 'four'),
    ],
    // partial-update keeps the last non-null value per column.
    partial: [
      { ...r(1, 'a', 11, '0.25', null), note: 'one' },
      r(2, 'a', 22, '10.00', 'two-again'),
      r(3, 'b', 3, '3.00', 'three'),
      r(4, 'b', 4, '4.00', 'four'),
    ],
    // aggregation: amount summed, v max, other columns last-non-null by default
    agg: [
      { ...r(1, 'a', 11, '1.75', null), note: 'one' },
      { ...r(2, 'a', 22, '12.00', 'two-again') },
      r(3, 'b', 3, '3.00', 'three'),
      r(4, 'b', 4, '4.00', 'four'),
    ],
  };

  for (const table of Object.keys(expected)) {
    it(`java reads ${table} as merged by hand`, async (ctx) => {
      if (!written) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
      const rows = await javaPaimon.read(warehouse, { table });
      expectSame(
        expected[table].map((x) => canonicalRow(types, x)),
        rows,
        `java paimon ${table}`,
      );
    });
  }

  it('java time-travels the dedup table to its first snapshot', async (ctx) => {
    if (!written) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    const rows = await javaPaimon.read(warehouse, { table: 'dedup', snapshotId: '1' });
    expectSame(
      commits[0].map((x) => canonicalRow(types, x)),
      rows,
      'java paimon dedup@1',
    );
  });
});

describe('oracle releases', () => {
  it('the Java oracle runs the Iceberg and Paimon releases its build names (printed for the run)', (ctx) => {
    if (!avail.java.ok) skipLoudly(ctx, `java unavailable: ${avail.java.reason}`);
    const pom = readFileSync(path.join(repoRoot, 'integration/oracles/java/pom.xml'), 'utf8');
    const prop = (name: string) => new RegExp(`<${name}>([^<]+)</${name}>`).exec(pom)?.[1];
    const versions = JSON.parse(execFileSync('java', ['-jar', oracleJar, 'versions'], { encoding: 'utf8' })) as {
      iceberg: string;
      paimon: string;
      icebergRestFixture: string;
    };
    const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
    let py = 'unavailable';
    try {
      py = execFileSync(
        python,
        [
          '-c',
          'import importlib.metadata as m; print(", ".join(p + " " + m.version(p) for p in ("pyiceberg", "pypaimon", "duckdb")))',
        ],
        { encoding: 'utf8' },
      ).trim();
    } catch (e) {
      py = `unavailable (${(e as Error).message.split('\n')[0]})`;
    }
    console.log(
      `oracles: Java Iceberg ${versions.iceberg} (REST server classes ${versions.icebergRestFixture}), Java Paimon ${versions.paimon}; ${py}`,
    );
    // the previous-release matrix entry (scripts/setup-oracles.sh) names its own versions
    expect(versions.iceberg).toBe(process.env.FLOE_ORACLE_ICEBERG ?? prop('iceberg.version'));
    expect(versions.paimon).toBe(process.env.FLOE_ORACLE_PAIMON ?? prop('paimon.version'));
  });
});
