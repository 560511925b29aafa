/**
 * Shared pieces of the Iceberg compaction interop tier:
 * - `floeCompactCli`: runs `floe compact … --json` in-process through the real commander command
 *   (no process start per run; the JVM oracles already dominate the tier's runtime);
 * - `floeRows`: floe's own scan rendered as canonical rows (the invariant "rows after == rows before");
 * - `RowModel`: the expected live rows, tracked by hand from the ops the tests script (never from floe);
 * - `applicableEqDeletes`: the spec's rule for which equality deletes apply to which data files, written
 *   independently of floe's DeleteIndex so the upsert-stream check does not grade floe with floe;
 * - S3 round trip helpers (the Java oracle writes local paths only).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Command } from 'commander';
import { register as registerCompact } from '../../src/shells/cli/commands/compact.js';
import type { DataFile, DeleteFile, Field, FieldType, TableModel } from '../../model/index.js';
import { loadTableModel, type IcebergTable } from '../../connectors/iceberg/table.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import { scanTable } from '../../connectors/iceberg/scan.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { canonicalRow, canonicalValue, type CanonicalRow, type InputRow } from '../oracles/index.js';
import type { S3TestServer } from '../support/s3-server.js';
import type { TestContext } from 'vitest';

// ------------------------------------------------------------------ floe CLI, in-process

export interface CliReport {
  table: string;
  before: { dataFiles: number; deleteFiles: number; records: number };
  after: { dataFiles: number; deleteFiles: number; records: number } | null;
  snapshots: string[];
  committedTasks: string[];
  failedTasks: { id: string; reason: string }[];
  rowsIn: number;
  rowsOut: number;
  plan: { planner: string; tasks: { id: string; kind: string; inputs: string[]; removableDeletes: string[] }[] };
}

let cliQueue: Promise<unknown> = Promise.resolve();

/**
 * `floe compact <args> --json` through the real command definition; returns the parsed report and the
 * exit code the CLI would have set. Runs are serialised because stdout is captured process-wide.
 */
export function floeCompactCli(args: string[]): Promise<{ report: CliReport; exitCode: number; stdout: string }> {
  const run = async () => {
    const program = new Command().exitOverride();
    registerCompact(program);
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    const savedExit = process.exitCode;
    process.exitCode = 0;
    process.stdout.write = ((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as typeof process.stdout.write;
    let exitCode: number;
    try {
      await program.parseAsync(['node', 'floe', 'compact', ...args, '--json']);
    } finally {
      process.stdout.write = write;
      exitCode = Number(process.exitCode ?? 0);
      process.exitCode = savedExit;
    }
    const stdout = chunks.join('');
    return { report: JSON.parse(stdout) as CliReport, exitCode, stdout };
  };
  const p = cliQueue.then(run, run);
  cliQueue = p.catch(() => undefined);
  return p;
}

// ------------------------------------------------------------------ floe's own scan

/** Iceberg type name of a primitive field, as the canonical rules spell it. */
export function typeName(t: FieldType): string {
  if (t.kind !== 'primitive') throw new Error(`nested type ${t.kind} not used in these tests`);
  if (t.name === 'decimal') return `decimal(${t.precision},${t.scale})`;
  if (t.name === 'fixed') return `fixed[${t.length}]`;
  return t.name;
}

/** Opens a table as `floe compact` does (S3 settings from the environment), runs `fn`, closes clients. */
export async function withTable<T>(ref: string, fn: (t: IcebergTable) => Promise<T>): Promise<T> {
  const opened = await openIcebergForWrite(ref, {});
  try {
    return await fn(opened.table);
  } finally {
    opened.files.destroy();
  }
}

/** Live rows of `ref` (table dir or metadata file) at the current or a given snapshot, by floe's scan. */
export async function floeRows(ref: string, snapshotId?: string | bigint): Promise<CanonicalRow[]> {
  return withTable(ref, (table) => scanRows(table, snapshotId));
}

async function scanRows(table: IcebergTable, snapshotId?: string | bigint): Promise<CanonicalRow[]> {
  const out: CanonicalRow[] = [];
  for await (const b of scanTable(table, snapshotId === undefined ? {} : { snapshotId: BigInt(snapshotId) })) {
    const types = b.fields.map((f: Field) => typeName(f.type));
    for (const r of b.rows) {
      const row: CanonicalRow = {};
      b.fields.forEach((f, i) => {
        row[f.name] = canonicalValue(types[i]!, r[i]);
      });
      out.push(row);
    }
  }
  return out;
}

export async function tableModel(ref: string): Promise<TableModel> {
  return withTable(ref, (t) => loadTableModel(t));
}

// ------------------------------------------------------------------ expected rows

/**
 * The live rows a correct engine must return, maintained from the scripted operations alone:
 * append adds rows; an equality delete removes every live row whose key columns equal a key row's
 * (Iceberg: it applies to rows committed earlier); an upsert is that delete followed by the append.
 */
export class RowModel {
  private rows: CanonicalRow[] = [];
  constructor(private readonly types: Record<string, string>) {}

  canon(r: InputRow): CanonicalRow {
    return canonicalRow(this.types, r);
  }

  append(rows: InputRow[]): void {
    this.rows.push(...rows.map((r) => this.canon(r)));
  }

  deleteKeys(keys: InputRow[], fields: string[]): void {
    // key rows carry only key columns: render just those
    const keyTypes = Object.fromEntries(fields.map((f) => [f, this.types[f]!]));
    const wanted = new Set(keys.map((k) => this.keyOf(canonicalRow(keyTypes, k), fields)));
    this.rows = this.rows.filter((r) => !wanted.has(this.keyOf(r, fields)));
  }

  upsert(rows: InputRow[], fields: string[]): void {
    this.deleteKeys(rows, fields);
    this.append(rows);
  }

  /** Position deletes by match: every live row whose listed columns equal the canonical values. */
  deleteWhere(where: Record<string, string | number | boolean | null>[]): void {
    const hit = (r: CanonicalRow) =>
      where.some((w) =>
        Object.entries(w).every(([k, v]) => (v === null ? r[k] === null : r[k] !== null && String(r[k]) === String(v))),
      );
    this.rows = this.rows.filter((r) => !hit(r));
  }

  live(): CanonicalRow[] {
    return [...this.rows];
  }

  snapshot(): CanonicalRow[] {
    return this.live();
  }

  private keyOf(r: CanonicalRow, fields: string[]): string {
    return JSON.stringify(fields.map((f) => r[f] ?? null));
  }
}

// ------------------------------------------------------------------ spec rules, independently

function samePartition(
  a: { specId: number; partition: unknown[] },
  b: { specId: number; partition: unknown[] },
): boolean {
  const s = (v: unknown[]) =>
    JSON.stringify(v, (_k, x) =>
      typeof x === 'bigint' ? `${x}n` : x instanceof Uint8Array ? Buffer.from(x).toString('hex') : x,
    );
  return a.specId === b.specId && s(a.partition) === s(b.partition);
}

/**
 * Equality-delete files that apply to `data` by the Iceberg spec ("Scan planning"): data sequence number of
 * the delete strictly greater than the data file's, and the same partition unless the delete's spec is
 * unpartitioned (a global delete).
 */
export function applicableEqDeletes(model: TableModel, data: DataFile): DeleteFile[] {
  return model.deleteFiles.filter((d) => {
    if (d.content !== 'equality-deletes') return false;
    if (d.dataSequenceNumber <= data.dataSequenceNumber) return false;
    const spec = model.specs.find((s) => s.specId === d.specId);
    const global = !spec || spec.fields.length === 0;
    return global || samePartition(d, data);
  });
}

// ------------------------------------------------------------------ loud skips

export function skipLoudly(ctx: TestContext, why: string): never {
  console.warn(`\n!!! SKIPPED: ${ctx.task.name}: ${why}\n`);
  ctx.skip(why);
  throw new Error('unreachable');
}

// ------------------------------------------------------------------ S3 round trip

async function* walk(dir: string): AsyncGenerator<string> {
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* walk(p);
    else if (e.isFile() && !e.name.endsWith('.crc')) yield p;
  }
}

export function s3FileIO(s: S3TestServer): FileIO {
  return new FileIO({
    s3: {
      endpoint: s.endpoint,
      region: s.region,
      forcePathStyle: true,
      credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
    },
  });
}

/** Copies every file under a local table directory to `s3Prefix` (e.g. s3://bucket/run/t) with floe's storage layer. */
export async function uploadDir(files: FileIO, localDir: string, s3Prefix: string): Promise<number> {
  let n = 0;
  for await (const p of walk(localDir)) {
    const r = files.resolve(`${s3Prefix}/${path.relative(localDir, p)}`);
    await r.store.put(r.key, await fs.readFile(p));
    n++;
  }
  return n;
}

/** Copies every object under `s3Prefix` into `localDir` (replacing its contents). */
export async function downloadDir(files: FileIO, s3Prefix: string, localDir: string): Promise<number> {
  await fs.rm(localDir, { recursive: true, force: true });
  const root = files.resolve(s3Prefix);
  const prefix = `${root.key.replace(/\/$/, '')}/`;
  let n = 0;
  for await (const e of root.store.list(prefix)) {
    const dest = path.join(localDir, e.key.slice(prefix.length));
    await fs.mkdir(path.dirname(dest), { recursive: true });
    await fs.writeFile(dest, await root.store.get(e.key));
    n++;
  }
  return n;
}

/** Env the CLI's S3 access reads (connectors/storage/env.ts), set for the duration of `fn`. */
export async function withS3Env<T>(s: S3TestServer, fn: () => Promise<T>): Promise<T> {
  const vars: Record<string, string> = {
    FLOE_S3_ENDPOINT: s.endpoint,
    AWS_ACCESS_KEY_ID: s.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s.secretAccessKey,
    AWS_REGION: s.region,
  };
  const saved: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(vars)) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

export type { DataFile, DeleteFile };
