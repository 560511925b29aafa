/**
 * Shared pieces of the Iceberg READ interop matrix:
 * - `floeScan`: `floe scan` (the CLI's own writeScan, jsonl) parsed back into canonical rows, with the
 *   column set checked against the types the test declares (so a missing or extra column fails loudly);
 * - `floeInspect`: `floe inspect --json` through the real command definition, reduced to file/record counts;
 * - `summaryCounts`: the same counts from an Iceberg snapshot summary (written by the engine, not by floe);
 * - `readOrSkip`: a reference reader that is unavailable or cannot read a table feature skips LOUDLY.
 */
import { Command } from 'commander';
import type { TestContext } from 'vitest';
import { FloeError } from '../../util/errors.js';
import { parseJsonLossless } from '../../util/json.js';
import { writeScan } from '../../src/shells/cli/commands/scan.js';
import { register as registerInspect } from '../../src/shells/cli/commands/inspect.js';
import { type Availability, type CanonicalRow, canonicalValue } from '../oracles/index.js';
import { skipLoudly } from '../iceberg-compaction/helpers.js';

export { skipLoudly };

export interface FloeCliOptions {
  snapshot?: string;
  catalog?: string;
  locationMap?: string[];
}

/** `floe scan <ref> [--snapshot] [--catalog]` output as canonical rows; `types` = column → Iceberg type. */
export async function floeScan(
  ref: string,
  types: Record<string, string>,
  opts: FloeCliOptions = {},
): Promise<CanonicalRow[]> {
  const chunks: string[] = [];
  await writeScan(ref, { ...opts, format: 'jsonl', locationMap: opts.locationMap ?? [] }, (c) => {
    chunks.push(c);
  });
  const want = Object.keys(types).sort().join(',');
  return chunks
    .join('')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const o = parseJsonLossless(line) as Record<string, unknown>;
      const got = Object.keys(o).sort().join(',');
      if (got !== want) throw new Error(`floe scan of ${ref} printed columns [${got}], expected [${want}]: ${line}`);
      const row: CanonicalRow = {};
      for (const [name, type] of Object.entries(types)) row[name] = canonicalValue(type, o[name]);
      return row;
    });
}

/** `floe scan --count`. */
export async function floeCount(ref: string, opts: FloeCliOptions = {}): Promise<number> {
  const chunks: string[] = [];
  await writeScan(ref, { ...opts, count: true, locationMap: opts.locationMap ?? [] }, (c) => {
    chunks.push(c);
  });
  return Number(chunks.join('').trim());
}

export interface FileCounts {
  dataFiles: number;
  deleteFiles: number;
  /** Records in live data files (before deletes). */
  records: number;
  /** Position-delete records (deletion-vector cardinalities included). */
  positionDeletes: number;
  equalityDeletes: number;
}

interface CountBytes {
  files: number;
  records: number;
}
interface InspectJson {
  formatVersion: number;
  inspectedSnapshotId: unknown;
  health: {
    data: Record<'fragment' | 'undersized' | 'target', CountBytes>;
    deletes: Record<'position' | 'equality' | 'deletionVector', CountBytes>;
  };
}

let cliQueue: Promise<unknown> = Promise.resolve();

/** Runs `floe inspect <args> --json` through the real command (stdout captured; calls serialised). */
export function floeInspectJson(ref: string, opts: FloeCliOptions = {}): Promise<InspectJson> {
  const args = [ref, '--json'];
  if (opts.snapshot) args.push('--snapshot', opts.snapshot);
  if (opts.catalog) args.push('--catalog', opts.catalog);
  for (const m of opts.locationMap ?? []) args.push('--location-map', m);
  const run = async (): Promise<InspectJson> => {
    const program = new Command().exitOverride();
    registerInspect(program);
    const chunks: string[] = [];
    const write = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((chunk: string | Uint8Array) => {
      chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      return true;
    }) as typeof process.stdout.write;
    try {
      await program.parseAsync(['node', 'floe', 'inspect', ...args]);
    } finally {
      process.stdout.write = write;
    }
    return parseJsonLossless(chunks.join('')) as InspectJson;
  };
  const p = cliQueue.then(run, run);
  cliQueue = p.catch(() => undefined);
  return p;
}

export async function floeInspect(ref: string, opts: FloeCliOptions = {}): Promise<FileCounts> {
  const r = await floeInspectJson(ref, opts);
  const d = r.health.data;
  const x = r.health.deletes;
  return {
    dataFiles: d.fragment.files + d.undersized.files + d.target.files,
    deleteFiles: x.position.files + x.equality.files + x.deletionVector.files,
    records: d.fragment.records + d.undersized.records + d.target.records,
    positionDeletes: x.position.records + x.deletionVector.records,
    equalityDeletes: x.equality.records,
  };
}

/** The counts an Iceberg snapshot summary states (`total-*` properties, written by the engine). */
export function summaryCounts(summary: Record<string, string> | undefined, what: string): FileCounts {
  if (!summary) throw new Error(`no snapshot summary for ${what}`);
  const n = (k: string): number => {
    const v = summary[k];
    if (v === undefined) throw new Error(`snapshot summary of ${what} lacks ${k}: ${JSON.stringify(summary)}`);
    return Number(v);
  };
  return {
    dataFiles: n('total-data-files'),
    deleteFiles: n('total-delete-files'),
    records: n('total-records'),
    positionDeletes: n('total-position-deletes'),
    equalityDeletes: n('total-equality-deletes'),
  };
}

// ------------------------------------------------------------------ reference readers

export type ReaderName = 'java' | 'pyiceberg' | 'duckdb';
export interface Reader {
  name: ReaderName;
  read: (table: string, opts: { snapshotId?: string }) => Promise<CanonicalRow[]>;
}

/** A reference engine's known limitation or defect: when its error matches, the check skips loudly with `why`. */
export interface KnownLimit {
  pattern: RegExp;
  why: string;
}

/** Reads with a reference engine; an unavailable engine, an unsupported feature (FloeError 'Unsupported')
 *  or a known limit of the engine becomes a loud skip. */
export async function readOrSkip(
  ctx: TestContext,
  avail: Record<ReaderName, Availability>,
  reader: Reader,
  table: string,
  snapshotId?: string,
  limits: KnownLimit[] = [],
): Promise<CanonicalRow[]> {
  const a = avail[reader.name];
  if (!a.ok) skipLoudly(ctx, `${reader.name} unavailable: ${a.reason}`);
  try {
    return await reader.read(table, snapshotId === undefined ? {} : { snapshotId });
  } catch (e) {
    const msg = (e as Error).message;
    if (e instanceof FloeError && e.kind === 'Unsupported')
      skipLoudly(ctx, `${reader.name} cannot read this table: ${msg.slice(0, 400)}`);
    const stderr = e instanceof FloeError ? String(e.context?.stderr ?? '') : '';
    const known = limits.find((l) => l.pattern.test(`${msg}\n${stderr}`));
    if (known) skipLoudly(ctx, `${reader.name} cannot read this table (${known.why})`);
    throw e;
  }
}
