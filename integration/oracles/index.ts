/**
 * TypeScript wrappers around the reference engines ("oracles") that interop tests compare floe against.
 * Install/build them with `bash scripts/setup-oracles.sh`; each oracle's `available()` says whether it can
 * run here and, if not, why (tests must then skip loudly, never pass silently).
 *
 * - javaIceberg: Apache Iceberg Java library (HadoopTables) — write/ops/append/delete/read.
 * - javaPaimon: Apache Paimon Java library (filesystem catalog) — write/read.
 * - pyiceberg: PyIceberg — write (appends, copy-on-write deletes) / read (no equality deletes).
 * - duckdb: DuckDB + iceberg extension from PyPI wheels — read.
 *
 * Rows come back as canonical rows (see ./canonical.ts). Failures throw FloeError: kind 'Unsupported' when
 * the engine cannot handle the table (e.g. PyIceberg and equality deletes), 'Internal' otherwise; the
 * message names the table and carries the engine's stderr.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FloeError } from '../../util/errors.js';
import type { CanonicalRow } from './canonical.js';

export * from './canonical.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const oracleJar = path.join(repoRoot, '.cache/oracles/java-target/floe-oracle.jar');
const pyDir = path.join(repoRoot, 'integration/oracles/py');
const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');
const java = process.env.FLOE_ORACLE_JAVA ?? 'java';
const SETUP_HINT = 'run `bash scripts/setup-oracles.sh`';

export interface Availability {
  ok: boolean;
  reason?: string;
}

// ------------------------------------------------------------------ specs

/** Input values may be canonical (strings for long/decimal/dates, hex for binary) or plain JSON numbers. */
export type InputRow = Record<string, string | number | boolean | null>;

export interface ColumnSpec {
  name: string;
  /** Iceberg type name: int, long, string, double, float, boolean, binary, date, time, timestamp,
   *  timestamptz, uuid, decimal(P,S), fixed[N]. */
  type: string;
  required?: boolean;
}

export interface PartitionFieldSpec {
  source: string;
  /** identity | bucket[N] | truncate[W] | day | month | year | hour */
  transform?: string;
  name?: string;
}

export type SchemaChange =
  | { action: 'add'; name: string; type: string; default?: string | number | boolean }
  | { action: 'rename'; from: string; to: string }
  | { action: 'widen'; name: string; type: string }
  | { action: 'drop'; name: string };

/** Row matcher for position deletes: every listed column equals its canonical value. */
export type RowMatch = Record<string, string | number | boolean | null>;

export type IcebergOp =
  /** One commit; one data file per partition. */
  | { op: 'append'; rows: InputRow[] }
  /** Equality-delete files (one per partition) on `fields` (default: identifier fields). Key rows must
   *  include partition source columns on partitioned tables. */
  | { op: 'delete-eq'; rows: InputRow[]; fields?: string[] }
  /** Flink-style upsert: equality delete of the rows' keys + the rows, in one commit. */
  | { op: 'upsert'; rows: InputRow[]; fields?: string[] }
  /** Position deletes (v2: Parquet delete files; v3: deletion vectors) of all rows matching any entry. */
  | { op: 'delete-pos'; where: RowMatch | RowMatch[] }
  | { op: 'evolve-schema'; changes: SchemaChange[] }
  | { op: 'evolve-spec'; add?: PartitionFieldSpec[]; remove?: string[] };

export interface IcebergTableSpec {
  formatVersion?: 1 | 2 | 3;
  schema: ColumnSpec[];
  partitionSpec?: PartitionFieldSpec[];
  identifierFields?: string[];
  properties?: Record<string, string>;
  ops?: IcebergOp[];
}

export interface OpResult {
  op: string;
  /** Absent for schema/spec evolution (no snapshot). */
  snapshotId?: string;
  sequenceNumber?: string;
  operation?: string;
  summary?: Record<string, string>;
}

export interface IcebergWriteResult {
  location: string;
  metadataFile: string;
  formatVersion: number;
  currentSnapshotId: string | null;
  ops: OpResult[];
}

export interface ReadOptions {
  /** Time travel to this snapshot (decimal string; 64-bit ids do not fit a JS number). */
  snapshotId?: string | bigint;
}

export interface PaimonColumnSpec {
  name: string;
  /** Iceberg-style (int, long, string, double, boolean, binary, date, timestamp, timestamptz) or a Paimon
   *  SQL type string (e.g. "DECIMAL(38, 10)", "TIMESTAMP(3)"), or a nested type as Paimon's schema JSON
   *  writes it ({type: 'ARRAY', element}, {type: 'MAP', key, value}, {type: 'MULTISET', element},
   *  {type: 'ROW', fields: [{name, type}]}; see PaimonNested.java for the input values). */
  type: string | PaimonNestedTypeSpec;
}

export type PaimonNestedTypeSpec =
  | { type: string; element: string | PaimonNestedTypeSpec }
  | { type: string; key: string | PaimonNestedTypeSpec; value: string | PaimonNestedTypeSpec }
  | { type: string; fields: { name: string; type: string | PaimonNestedTypeSpec }[] };

export interface PaimonChange {
  /** +I insert, -U update-before, +U update-after, -D delete */
  kind?: '+I' | '-U' | '+U' | '-D';
  row: InputRow;
}

export interface PaimonTableSpec {
  database?: string;
  table?: string;
  /** Present → create the table; absent → write into the existing one. */
  fields?: PaimonColumnSpec[];
  primaryKeys?: string[];
  partitionKeys?: string[];
  /** e.g. { bucket: '2', 'merge-engine': 'deduplicate', 'write-only': 'true' } */
  options?: Record<string, string>;
  /** Each inner array is one batch commit. */
  commits?: PaimonChange[][];
}

export interface PaimonWriteResult {
  tablePath: string;
  commits: { snapshotId: string | null }[];
}

// ------------------------------------------------------------------ process plumbing

interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], input?: string, cwd?: string): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
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
    child.stdin.on('error', () => undefined); // the child may exit before reading stdin
    child.stdin.end(input ?? '');
  });
}

/** The meaningful part of an engine's stderr: our JSON error line first, else the tail. */
function stderrSummary(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.trim() && !l.startsWith('SLF4J'));
  const json = lines.find(
    (l) => l.startsWith('{"error"') || l.startsWith('{"unsupported"') || l.startsWith('{"unavailable"'),
  );
  return json ?? lines.slice(-15).join('\n');
}

function fail(oracle: string, what: string, table: string, r: RunResult): never {
  const summary = stderrSummary(r.stderr);
  const unsupported = r.code === 3 || summary.startsWith('{"unsupported"');
  throw new FloeError(
    unsupported ? 'Unsupported' : 'Internal',
    `${oracle} ${what} failed for table ${table}: ${summary}`,
    {
      context: { oracle, table, exitCode: r.code, stderr: r.stderr.slice(-8000) },
    },
  );
}

function parseLines(text: string): CanonicalRow[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as CanonicalRow);
}

function parseJson<T>(oracle: string, table: string, r: RunResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch (e) {
    throw new FloeError('Internal', `${oracle} printed no JSON result for table ${table}: ${r.stdout.slice(0, 500)}`, {
      context: { table, stderr: r.stderr.slice(-4000) },
      cause: e,
    });
  }
}

function snapshotArgs(opts: ReadOptions): string[] {
  return opts.snapshotId === undefined ? [] : ['--snapshot', String(opts.snapshotId)];
}

async function javaAvailable(): Promise<Availability> {
  const v = await run(java, ['-version']);
  if (v.code !== 0) return { ok: false, reason: `java not runnable (${v.stderr.trim() || 'exit ' + v.code})` };
  if (!existsSync(oracleJar)) return { ok: false, reason: `oracle jar missing at ${oracleJar}: ${SETUP_HINT}` };
  return { ok: true };
}

function memo<T>(f: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
}

const javaAvailableOnce = memo(javaAvailable);

/**
 * One long-lived `java -jar floe-oracle.jar serve` process per test process: a JVM start costs seconds on a
 * busy 2-core machine, so calls go to it as JSON lines, one at a time. It exits when our stdin closes.
 * Set FLOE_ORACLE_JAVA_FORK=1 to start one JVM per call instead.
 */
class JavaServer {
  private child: ChildProcessWithoutNullStreams | undefined;
  private pending: ((line: string | undefined) => void)[] = [];
  private chain: Promise<unknown> = Promise.resolve();
  private stderrTail = '';

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn(java, ['-jar', oracleJar, 'serve'], { stdio: ['pipe', 'pipe', 'pipe'] });
    createInterface({ input: child.stdout }).on('line', (line) => this.pending.shift()?.(line));
    child.stderr.on('data', (b: Buffer) => {
      this.stderrTail = (this.stderrTail + b.toString('utf8')).slice(-8000);
    });
    child.on('exit', () => {
      this.child = undefined;
      for (const p of this.pending.splice(0)) p(undefined);
    });
    child.stdin.on('error', () => undefined);
    return child;
  }

  /** An idle server must not keep Node alive; a call in flight must (a pending promise alone does not). */
  private setRef(child: ChildProcessWithoutNullStreams, on: boolean): void {
    for (const h of [child, child.stdin, child.stdout, child.stderr] as unknown as {
      ref?: () => void;
      unref?: () => void;
    }[]) {
      if (on) h.ref?.();
      else h.unref?.();
    }
  }

  call(argv: string[], input?: unknown): Promise<RunResult> {
    const next = this.chain.then(
      () =>
        new Promise<RunResult>((resolve) => {
          const child = (this.child ??= this.start());
          this.setRef(child, true);
          this.pending.push((line) => {
            this.setRef(child, false);
            if (line === undefined) {
              resolve({ code: -1, stdout: '', stderr: `java oracle server exited\n${this.stderrTail}` });
              return;
            }
            const reply = JSON.parse(line) as { ok: boolean; stdout?: string; error?: string; trace?: string };
            if (reply.ok) resolve({ code: 0, stdout: reply.stdout ?? '', stderr: '' });
            else
              resolve({
                code: 1,
                stdout: '',
                stderr: `${JSON.stringify({ error: reply.error })}\n${reply.trace ?? ''}`,
              });
          });
          child.stdin.write(JSON.stringify({ argv, input: input ?? null }) + '\n');
        }),
    );
    this.chain = next.catch(() => undefined);
    return next;
  }
}

const javaServer = new JavaServer();

async function runJava(cmd: string, location: string, args: string[], input?: unknown): Promise<RunResult> {
  const argv = [cmd, location, ...args];
  const r =
    process.env.FLOE_ORACLE_JAVA_FORK === '1'
      ? await run(java, ['-jar', oracleJar, ...argv], input === undefined ? undefined : JSON.stringify(input))
      : await javaServer.call(argv, input);
  if (r.code !== 0) fail('java oracle', cmd, location, r);
  return r;
}

// ------------------------------------------------------------------ Java Iceberg

export const javaIceberg = {
  available: javaAvailableOnce,

  /** Creates a Hadoop table at `dir` (must not exist) and applies spec.ops. */
  async write(dir: string, spec: IcebergTableSpec): Promise<IcebergWriteResult> {
    const r = await runJava('iceberg-write', dir, [], spec);
    return parseJson('java oracle', dir, r);
  },

  /** Applies ops to an existing Hadoop table at `dir`. */
  async ops(dir: string, ops: IcebergOp[]): Promise<IcebergWriteResult> {
    const r = await runJava('iceberg-ops', dir, [], { ops });
    return parseJson('java oracle', dir, r);
  },

  /** One append commit on an existing table (e.g. after floe compacted it). */
  async append(dir: string, rows: InputRow[]): Promise<IcebergWriteResult> {
    const r = await runJava('iceberg-append', dir, [], { rows });
    return parseJson('java oracle', dir, r);
  },

  /** One delete commit on an existing table: equality deletes by key rows, or position deletes by match. */
  async delete(
    dir: string,
    del: { mode: 'eq'; rows: InputRow[]; fields?: string[] } | { mode: 'pos'; where: RowMatch | RowMatch[] },
  ): Promise<IcebergWriteResult> {
    const r = await runJava('iceberg-delete', dir, [], del);
    return parseJson('java oracle', dir, r);
  },

  /** Live rows of a table directory or metadata JSON file. */
  async read(table: string, opts: ReadOptions = {}): Promise<CanonicalRow[]> {
    const r = await runJava('iceberg-read', table, snapshotArgs(opts));
    return parseLines(r.stdout);
  },

  async count(table: string, opts: ReadOptions = {}): Promise<number> {
    const r = await runJava('iceberg-read', table, [...snapshotArgs(opts), '--count']);
    return (JSON.parse(r.stdout) as { count: number }).count;
  },
};

// ------------------------------------------------------------------ Java Paimon

export const javaPaimon = {
  available: javaAvailableOnce,

  /** Creates (when spec.fields is set) and writes a table in the filesystem catalog at `warehouse`. */
  async write(warehouse: string, spec: PaimonTableSpec): Promise<PaimonWriteResult> {
    const r = await runJava('paimon-write', warehouse, [], spec);
    return parseJson('java oracle', warehouse, r);
  },

  /** Several tables in one JVM start (cheaper on a busy machine); results in spec order. */
  async writeMany(warehouse: string, specs: PaimonTableSpec[]): Promise<PaimonWriteResult[]> {
    const r = await runJava('paimon-write', warehouse, [], { tables: specs });
    return parseJson('java oracle', warehouse, r);
  },

  async read(
    warehouse: string,
    table: { database?: string; table?: string } & ReadOptions = {},
  ): Promise<CanonicalRow[]> {
    const r = await runJava('paimon-read', warehouse, snapshotArgs(table), {
      database: table.database,
      table: table.table,
    });
    return parseLines(r.stdout);
  },

  /**
   * A streaming read of the table's changelog (StreamTableScan) until no snapshot is left: rows with their
   * kinds in reading order, and `next` (the checkpoint) to resume from with `from`.
   */
  async stream(
    warehouse: string,
    t: { database?: string; table?: string; from?: string | null; options?: Record<string, string> },
  ): Promise<{ rows: { kind: string; line: string }[]; next: string | null }> {
    const r = await runJava('paimon-stream', warehouse, [], t);
    return parseJson('java oracle', warehouse, r);
  },

  /** Writes into a dynamic-bucket (bucket = -1) primary-key table through a HashBucketAssigner, as Paimon's sinks do. */
  async writeDynamic(warehouse: string, spec: PaimonTableSpec): Promise<PaimonWriteResult> {
    const r = await runJava('paimon-write-dynamic', warehouse, [], spec);
    return parseJson('java oracle', warehouse, r);
  },

  /**
   * A row-level DELETE on an append table with deletion vectors, as Paimon's Spark DELETE commits it
   * (DVs through BaseAppendDeleteFileMaintainer): rows whose `column` renders to one of `values`.
   */
  async appendDelete(
    warehouse: string,
    t: { database?: string; table?: string; column: string; values: (string | number)[] },
  ): Promise<{ snapshotId: string | null; deleted: number }> {
    const r = await runJava('paimon-append-delete', warehouse, [], { ...t, values: t.values.map(String) });
    return parseJson('java oracle', warehouse, r);
  },

  /** Paimon's own compaction of every partition/bucket (full by default), one commit. */
  async compact(
    warehouse: string,
    table: { database?: string; table?: string; full?: boolean } = {},
  ): Promise<{ snapshotId: string | null }> {
    const r = await runJava('paimon-compact', warehouse, [], {
      database: table.database,
      table: table.table,
      full: table.full ?? true,
    });
    return parseJson('java oracle', warehouse, r);
  },
};

// ------------------------------------------------------------------ Python oracles

async function pythonAvailable(module: string): Promise<Availability> {
  if (!existsSync(python)) return { ok: false, reason: `python venv missing at ${python}: ${SETUP_HINT}` };
  const r = await run(python, ['-c', `import ${module}`]);
  if (r.code !== 0)
    return { ok: false, reason: `python cannot import ${module}: ${stderrSummary(r.stderr)} (${SETUP_HINT})` };
  return { ok: true };
}

async function runPy(script: string, table: string, args: string[], input?: unknown): Promise<RunResult> {
  const r = await run(
    python,
    ['-B', path.join(pyDir, script), table, ...args],
    input === undefined ? undefined : JSON.stringify(input),
    pyDir,
  );
  if (r.code !== 0) fail(script, 'run', table, r);
  return r;
}

export interface PyIcebergTableSpec {
  formatVersion?: 1 | 2;
  /** Present → create the table at the path; absent → register the path's current metadata and modify. */
  schema?: ColumnSpec[];
  partitionSpec?: PartitionFieldSpec[];
  identifierFields?: string[];
  properties?: Record<string, string>;
  /** delete is PyIceberg's own delete: copy-on-write (PyIceberg 0.12 writes no delete files). */
  ops?: ({ op: 'append'; rows: InputRow[] } | { op: 'delete'; where: RowMatch | RowMatch[] })[];
}

export const pyiceberg = {
  available: memo(() => pythonAvailable('pyiceberg, pyarrow')),

  /** Table written through an in-memory SQL catalog: metadata files are `NNNNN-<uuid>.metadata.json`,
   *  no version hint; use the returned metadataFile to address it. */
  async write(dir: string, spec: PyIcebergTableSpec): Promise<IcebergWriteResult> {
    const r = await runPy('pyiceberg_write.py', dir, [], spec);
    return parseJson('pyiceberg', dir, r);
  },

  /** Throws FloeError kind 'Unsupported' for tables PyIceberg cannot read (equality deletes). */
  async read(table: string, opts: ReadOptions = {}): Promise<CanonicalRow[]> {
    const r = await runPy('pyiceberg_read.py', table, snapshotArgs(opts));
    return parseLines(r.stdout);
  },
};

export const duckdb = {
  available: memo(async (): Promise<Availability> => {
    const base = await pythonAvailable('duckdb');
    if (!base.ok) return base;
    const r = await run(python, ['-B', path.join(pyDir, 'duckdb_read.py'), '--check'], undefined, pyDir);
    if (r.code !== 0) return { ok: false, reason: `duckdb iceberg extension unavailable: ${stderrSummary(r.stderr)}` };
    return { ok: true };
  }),

  async read(table: string, opts: ReadOptions = {}): Promise<CanonicalRow[]> {
    const r = await runPy('duckdb_read.py', table, snapshotArgs(opts));
    return parseLines(r.stdout);
  },
};

// ------------------------------------------------------------------ maintenance (refs, reachability, expiry)

export interface IcebergRefInfo {
  type: 'branch' | 'tag';
  snapshotId: string;
  maxRefAgeMs?: number;
  minSnapshotsToKeep?: number;
  maxSnapshotAgeMs?: number;
}

export interface IcebergSnapshotInfo {
  snapshotId: string;
  parentId: string | null;
  timestampMs: number;
  operation: string;
  manifestList: string;
  manifests: string[];
  /** Data and delete files live in the snapshot, per Java's ManifestReader. */
  files: string[];
}

export interface IcebergTableInfo {
  metadataFile: string;
  currentSnapshotId: string | null;
  snapshots: IcebergSnapshotInfo[];
  refs: Record<string, IcebergRefInfo>;
  statistics: string[];
}

export interface PaimonSnapshotInfo {
  id: string;
  timeMillis: number;
  commitKind: string;
  /** Manifest lists and the index manifest (file names). */
  lists: string[];
  manifests: string[];
  /** Names of the data files live in the snapshot. */
  files: string[];
}

export interface PaimonTableInfo {
  earliest: string | null;
  latest: string | null;
  snapshots: PaimonSnapshotInfo[];
  tags: (PaimonSnapshotInfo & { name: string })[];
}

/** Reference-library views used by the maintenance interop tier (snapshot expiry, orphan removal). */
export const javaMaintenance = {
  available: javaAvailableOnce,

  /** Rows of a branch or tag head. */
  async icebergReadRef(table: string, ref: string): Promise<CanonicalRow[]> {
    return parseLines((await runJava('iceberg-read', table, ['--ref', ref])).stdout);
  },

  /** Snapshots (with manifest list, manifests, live files) and refs, as Java reads the table. */
  async icebergInfo(table: string): Promise<IcebergTableInfo> {
    return parseJson('java oracle', table, await runJava('iceberg-info', table, []));
  },

  /** Java's ExpireSnapshots; unless `delete`, the files it would delete are only collected. */
  async icebergExpire(
    table: string,
    spec: { olderThanMs?: number; retainLast?: number; snapshotIds?: string[]; delete?: boolean },
  ): Promise<{ deleted: string[]; info: IcebergTableInfo }> {
    return parseJson('java oracle', table, await runJava('iceberg-expire', table, [], spec));
  },

  async paimonTag(
    warehouse: string,
    t: { database?: string; table?: string; name: string; snapshotId: string | number },
  ): Promise<void> {
    await runJava('paimon-tag', warehouse, [], { ...t, snapshotId: String(t.snapshotId) });
  },

  async paimonReadTag(
    warehouse: string,
    t: { database?: string; table?: string; tag: string },
  ): Promise<CanonicalRow[]> {
    return parseLines((await runJava('paimon-read', warehouse, [], t)).stdout);
  },

  async paimonInfo(warehouse: string, t: { database?: string; table?: string } = {}): Promise<PaimonTableInfo> {
    return parseJson('java oracle', warehouse, await runJava('paimon-info', warehouse, [], t));
  },

  /** Java Paimon's own snapshot expiry (ExpireSnapshots with an explicit ExpireConfig). */
  async paimonExpire(
    warehouse: string,
    t: {
      database?: string;
      table?: string;
      retainMin: number;
      retainMax?: number;
      timeRetainMs?: number;
      maxDeletes?: number;
      /** Set any of these for a decoupled changelog lifecycle (then ExpireChangelogImpl runs too). */
      changelogRetainMin?: number;
      changelogRetainMax?: number;
      changelogTimeRetainMs?: number;
    },
  ): Promise<{ expired: number; expiredChangelogs?: number }> {
    return parseJson('java oracle', warehouse, await runJava('paimon-expire', warehouse, [], t));
  },
};
