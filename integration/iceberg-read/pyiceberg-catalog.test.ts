/**
 * PyIceberg-written tables in a SQL catalog on a SQLite file (PyIceberg's SqlCatalog: appends and its own
 * copy-on-write delete) read by floe through `--catalog sql:<file>` and by metadata file, against PyIceberg
 * itself (through the same catalog), the Java reader and DuckDB (by metadata file), at the current snapshot
 * and with time travel; `floe inspect --json` counts against the snapshot summaries PyIceberg wrote into
 * the metadata file. Unavailable engines skip LOUDLY.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import {
  type Availability,
  type CanonicalRow,
  type InputRow,
  diffRows,
  duckdb,
  javaIceberg,
  pyiceberg,
  repoRoot,
} from '../oracles/index.js';
import { RowModel } from '../iceberg-compaction/helpers.js';
import { parseJsonLossless } from '../../util/json.js';
import { floeCount, floeInspect, floeScan, readOrSkip, skipLoudly, summaryCounts, type ReaderName } from './helpers.js';
import { ALL_TYPES, rows } from './tables.js';

const avail: Record<ReaderName, Availability> = {
  java: await javaIceberg.available(),
  pyiceberg: await pyiceberg.available(),
  duckdb: await duckdb.available(),
};
for (const [name, a] of Object.entries(avail))
  if (!a.ok) console.warn(`\n!!! SKIPPED: ${name} oracle unavailable: ${a.reason}\n`);

const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
const script = path.join(repoRoot, 'integration/oracles/py/pyiceberg_catalog.py');

/** integration/oracles/py/pyiceberg_catalog.py (PyIceberg through a SQL catalog file). */
function pyCatalog(args: string[], input?: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-B', script, ...args], {
      cwd: path.dirname(script),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    child.on('error', reject);
    child.on('close', (code) => {
      const stderr = Buffer.concat(err).toString('utf8');
      if (code !== 0)
        reject(new Error(`pyiceberg_catalog.py ${args.join(' ')} exited ${code}: ${stderr.slice(-3000)}`));
      else resolve(Buffer.concat(out).toString('utf8'));
    });
    child.stdin.end(input === undefined ? '' : JSON.stringify(input));
  });
}

const parseLines = (text: string): CanonicalRow[] =>
  text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as CanonicalRow);

function expectSame(
  expected: CanonicalRow[],
  actual: CanonicalRow[],
  labels: { expected: string; actual: string },
): void {
  const d = diffRows(expected, actual, labels);
  expect(d.text, d.text).toBe('');
}

const work = mkdtempSync(path.join(os.tmpdir(), 'floe-read-pycat-'));
const db = path.join(work, 'catalog.db');
const warehouse = path.join(work, 'warehouse');
const catalog = `sql:${db}`;
afterAll(() => rmSync(work, { recursive: true, force: true }));

const TYPES = { ...ALL_TYPES, region: 'string' };

interface Table {
  ident: string;
  partitionSpec: { source: string; transform?: string }[];
  ops: ({ op: 'append'; rows: InputRow[] } | { op: 'delete'; where: Record<string, string | null>[] })[];
  /** Index of the op whose snapshot the time-travel reads use. */
  travelOp: number;
}

const TABLES: Table[] = [
  {
    ident: 'sales.unpartitioned',
    partitionSpec: [],
    ops: [
      { op: 'append', rows: rows(1, 5, 0, true) },
      { op: 'append', rows: rows(6, 5, 0, true) },
      { op: 'append', rows: rows(11, 5, 0, true) },
      { op: 'append', rows: rows(16, 5, 0, true) },
      { op: 'delete', where: [{ region: 'us' }] },
      { op: 'append', rows: rows(21, 4, 0, true) },
    ],
    travelOp: 1,
  },
  {
    ident: 'sales.partitioned',
    partitionSpec: [{ source: 'region' }, { source: 'dt', transform: 'day' }],
    ops: [
      { op: 'append', rows: rows(1, 8, 0, true) },
      { op: 'append', rows: rows(9, 8, 0, true) },
      { op: 'delete', where: [{ region: 'eu' }] },
      { op: 'append', rows: rows(17, 6, 0, true) },
    ],
    travelOp: 1,
  },
];

interface Written {
  metadataFile: string;
  snapshots: string[];
  expected: CanonicalRow[][];
  summaries: Map<string, Record<string, string>>;
}
const written = new Map<string, Written>();
const failures = new Map<string, unknown>();

/** Hand model: appends add rows; PyIceberg's delete removes every row matching a condition. */
function model(ops: Table['ops']): CanonicalRow[][] {
  const m = new RowModel(TYPES);
  return ops.map((op) => {
    if (op.op === 'append') m.append(op.rows);
    else m.deleteWhere(op.where);
    return m.live();
  });
}

beforeAll(async () => {
  if (!avail.pyiceberg.ok) return;
  for (const t of TABLES) {
    try {
      const out = JSON.parse(
        await pyCatalog(['write', t.ident, '--catalog', catalog, '--warehouse', warehouse], {
          formatVersion: 2,
          schema: Object.entries(TYPES).map(([name, type]) => ({
            name,
            type,
            required: name === 'id' || name === 'region',
          })),
          partitionSpec: t.partitionSpec,
          ops: t.ops,
        }),
      ) as { metadataFile: string; ops: { snapshotId: string }[] };
      // lossless: snapshot ids may exceed 2^53
      const md = parseJsonLossless(readFileSync(out.metadataFile.replace(/^file:(\/\/)?/, ''), 'utf8')) as {
        snapshots: { 'snapshot-id': number | bigint; summary: Record<string, string> }[];
      };
      const summaries = new Map(md.snapshots.map((s) => [String(s['snapshot-id']), s.summary]));
      written.set(t.ident, {
        metadataFile: out.metadataFile,
        snapshots: out.ops.map((o) => o.snapshotId),
        expected: model(t.ops),
        summaries,
      });
    } catch (e) {
      failures.set(t.ident, e);
    }
  }
}, 300_000);

function need(ctx: TestContext, t: Table): Written {
  if (!avail.pyiceberg.ok) skipLoudly(ctx, `pyiceberg unavailable: ${avail.pyiceberg.reason}`);
  const w = written.get(t.ident);
  if (!w)
    throw new Error(
      `pyiceberg could not write ${t.ident}: ${String((failures.get(t.ident) as Error)?.message ?? failures.get(t.ident))}`,
    );
  return w;
}

for (const t of TABLES) {
  describe(`PyIceberg SqlCatalog table ${t.ident}`, () => {
    it('pyiceberg (through the catalog) holds the hand-tracked rows, now and at the time-travel snapshot', async (ctx) => {
      const w = need(ctx, t);
      expectSame(w.expected.at(-1)!, parseLines(await pyCatalog(['read', t.ident, '--catalog', catalog])), {
        expected: 'hand-tracked',
        actual: 'pyiceberg',
      });
      const snap = w.snapshots[t.travelOp]!;
      const travel = parseLines(await pyCatalog(['read', t.ident, '--catalog', catalog, '--snapshot', snap]));
      expectSame(w.expected[t.travelOp]!, travel, { expected: 'hand-tracked', actual: `pyiceberg @${snap}` });
    });

    it('floe scan --catalog sql:<file> == the rows, now and with --snapshot; --count agrees', async (ctx) => {
      const w = need(ctx, t);
      expectSame(w.expected.at(-1)!, await floeScan(t.ident, TYPES, { catalog }), {
        expected: 'hand-tracked',
        actual: 'floe scan --catalog',
      });
      const snap = w.snapshots[t.travelOp]!;
      expectSame(w.expected[t.travelOp]!, await floeScan(t.ident, TYPES, { catalog, snapshot: snap }), {
        expected: 'hand-tracked',
        actual: `floe scan --catalog --snapshot ${snap}`,
      });
      expect(await floeCount(t.ident, { catalog })).toBe(w.expected.at(-1)!.length);
    });

    it('floe scan <metadata file> == the rows, now and with --snapshot', async (ctx) => {
      const w = need(ctx, t);
      expectSame(w.expected.at(-1)!, await floeScan(w.metadataFile, TYPES), {
        expected: 'hand-tracked',
        actual: 'floe scan <metadata>',
      });
      const snap = w.snapshots[t.travelOp]!;
      expectSame(w.expected[t.travelOp]!, await floeScan(w.metadataFile, TYPES, { snapshot: snap }), {
        expected: 'hand-tracked',
        actual: `floe scan <metadata> --snapshot ${snap}`,
      });
    });

    it('floe inspect --json counts == the snapshot summaries PyIceberg wrote (catalog and metadata file)', async (ctx) => {
      const w = need(ctx, t);
      const current = w.snapshots.at(-1)!;
      const snap = w.snapshots[t.travelOp]!;
      expect(await floeInspect(t.ident, { catalog })).toEqual(
        summaryCounts(w.summaries.get(current), `${t.ident} current`),
      );
      expect(await floeInspect(w.metadataFile, { snapshot: snap })).toEqual(
        summaryCounts(w.summaries.get(snap), `${t.ident} @${snap}`),
      );
    });

    for (const name of ['java', 'duckdb'] as const) {
      it(`${name} (by metadata file) reads the same rows, now and with time travel`, async (ctx) => {
        const w = need(ctx, t);
        const reader = { name, read: name === 'java' ? javaIceberg.read : duckdb.read };
        expectSame(w.expected.at(-1)!, await readOrSkip(ctx, avail, reader, w.metadataFile), {
          expected: 'hand-tracked',
          actual: name,
        });
        const snap = w.snapshots[t.travelOp]!;
        expectSame(w.expected[t.travelOp]!, await readOrSkip(ctx, avail, reader, w.metadataFile, snap), {
          expected: 'hand-tracked',
          actual: `${name} @${snap}`,
        });
      });
    }
  });
}
