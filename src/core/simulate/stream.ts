/**
 * Commit streams: validation of the JSON form and expansion into a flat, time-ordered list of commits
 * with every file spelled out. The format is documented in src/core/simulate/README.md.
 */
import { readFile } from 'node:fs/promises';
import { FloeError } from '../../../util/errors.js';
import { parseJsonLossless } from '../../../util/json.js';
import {
  DEFAULT_SIZE_MODEL,
  type CommitSpec,
  type CommitStream,
  type CommitStreamSpec,
  type DataFileSpec,
  type NewDataFile,
  type NewEqualityDelete,
  type NewPositionDelete,
  type StreamCommit,
} from './types.js';

const MINUTE_MS = 60_000;

function invalid(source: string, what: string): FloeError {
  return new FloeError('InvalidArgument', `commit stream ${source}: ${what}`, { context: { file: source } });
}

function num(source: string, where: string, v: unknown, opts: { min?: number; integer?: boolean } = {}): number {
  const n = typeof v === 'bigint' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n))
    throw invalid(source, `${where} must be a number, got ${JSON.stringify(String(v))}`);
  if (opts.integer && !Number.isInteger(n)) throw invalid(source, `${where} must be an integer, got ${n}`);
  if (opts.min !== undefined && n < opts.min) throw invalid(source, `${where} must be ≥ ${opts.min}, got ${n}`);
  return n;
}

function partitionOf(source: string, where: string, v: unknown): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw invalid(source, `${where}.partition must be a string or null`);
  return v;
}

/** The numbers every delete spec has, checked; `deletesRows` defaults to `records`, `count` to 1. */
function deleteCounts(
  source: string,
  w: string,
  d: { count?: number; records: number; deletesRows?: number; sizeBytes: number },
): { count: number; records: number; deletesRows: number; sizeBytes: number } {
  const count = d.count === undefined ? 1 : num(source, `${w}.count`, d.count, { min: 0, integer: true });
  const records = num(source, `${w}.records`, d.records, { min: 1, integer: true });
  const deletesRows =
    d.deletesRows === undefined ? records : num(source, `${w}.deletesRows`, d.deletesRows, { min: 0, integer: true });
  const sizeBytes = num(source, `${w}.sizeBytes`, d.sizeBytes, { min: 1, integer: true });
  return { count, records, deletesRows, sizeBytes };
}

/** Validates a parsed stream and expands repeats, counts and targets. `source` names it in errors. */
export function normalizeStream(spec: CommitStreamSpec, source = spec?.name ?? '<stream>'): CommitStream {
  if (spec === null || typeof spec !== 'object') throw invalid(source, 'must be a JSON object');
  if (typeof spec.name !== 'string' || spec.name === '') throw invalid(source, '"name" must be a non-empty string');
  const durationMs = num(source, 'durationMinutes', spec.durationMinutes, { min: 1 }) * MINUTE_MS;
  const tickMs = spec.tickMs === undefined ? MINUTE_MS : num(source, 'tickMs', spec.tickMs, { min: 1, integer: true });
  if (MINUTE_MS % tickMs !== 0) throw invalid(source, `tickMs ${tickMs} must divide one minute (60000 ms)`);
  if (!Array.isArray(spec.commits)) throw invalid(source, '"commits" must be an array');
  const sizeModel = { ...DEFAULT_SIZE_MODEL, ...(spec.sizeModel ?? {}) };
  for (const [k, v] of Object.entries(sizeModel)) num(source, `sizeModel.${k}`, v, { min: 0 });

  const ids = new Map<string, string | null>(); // data file id → partition
  let autoId = 0;
  const partitions = { labelled: 0, unlabelled: 0 };
  const notePartition = (p: string | null) => {
    if (p === null) partitions.unlabelled++;
    else partitions.labelled++;
  };

  const expandData = (files: DataFileSpec[] | undefined, where: string, prefix: string): NewDataFile[] => {
    if (files === undefined) return [];
    if (!Array.isArray(files)) throw invalid(source, `${where} must be an array`);
    const out: NewDataFile[] = [];
    files.forEach((f, i) => {
      const w = `${where}[${i}]`;
      const count = f.count === undefined ? 1 : num(source, `${w}.count`, f.count, { min: 0, integer: true });
      const sizeBytes = num(source, `${w}.sizeBytes`, f.sizeBytes, { min: 1, integer: true });
      const records = num(source, `${w}.records`, f.records, { min: 1, integer: true });
      const partition = partitionOf(source, w, f.partition);
      if (f.id !== undefined && count !== 1) throw invalid(source, `${w}: "id" needs count 1`);
      for (let k = 0; k < count; k++) {
        const id = f.id ?? `${prefix}-${autoId++}`;
        if (ids.has(id)) throw invalid(source, `${w}: duplicate data file id "${id}"`);
        ids.set(id, partition);
        notePartition(partition);
        out.push({ id, partition, sizeBytes, records });
      }
    });
    return out;
  };

  const base = expandData(spec.base, 'base', 'base');

  // Expand repeats first so every commit instance gets its own file ids.
  const instances: { atMs: number; spec: CommitSpec; where: string }[] = [];
  spec.commits.forEach((c, i) => {
    const where = `commits[${i}]`;
    if (c === null || typeof c !== 'object') throw invalid(source, `${where} must be an object`);
    let atMs: number;
    if (c.atMs !== undefined) atMs = num(source, `${where}.atMs`, c.atMs, { min: 0 });
    else if (c.atMinute !== undefined) atMs = num(source, `${where}.atMinute`, c.atMinute, { min: 0 }) * MINUTE_MS;
    else throw invalid(source, `${where} needs "atMinute" or "atMs"`);
    const times = c.repeat ? num(source, `${where}.repeat.times`, c.repeat.times, { min: 1, integer: true }) : 1;
    const every = c.repeat ? num(source, `${where}.repeat.everyMinutes`, c.repeat.everyMinutes, { min: 0 }) : 0;
    for (let k = 0; k < times; k++) {
      const at = Math.round(atMs + k * every * MINUTE_MS);
      if (at >= durationMs) break; // commits past the end never land
      instances.push({ atMs: at, spec: c, where: times > 1 ? `${where}#${k}` : where });
    }
  });
  // Stable sort keeps file order (and so position-delete string targets) deterministic.
  instances.sort((a, b) => a.atMs - b.atMs);

  const commits: StreamCommit[] = instances.map(({ atMs, spec: c, where }) => {
    const data = expandData(c.data, `${where}.data`, 'w');
    const equalityDeletes: NewEqualityDelete[] = [];
    (c.equalityDeletes ?? []).forEach((d, i) => {
      const w = `${where}.equalityDeletes[${i}]`;
      const { count, records, deletesRows, sizeBytes } = deleteCounts(source, w, d);
      const partition = partitionOf(source, w, d.partition);
      for (let k = 0; k < count; k++) {
        notePartition(partition);
        equalityDeletes.push({ partition, sizeBytes, records, deletesRows });
      }
    });
    const positionDeletes: NewPositionDelete[] = [];
    (c.positionDeletes ?? []).forEach((d, i) => {
      const w = `${where}.positionDeletes[${i}]`;
      const { count, records, deletesRows, sizeBytes } = deleteCounts(source, w, d);
      for (let k = 0; k < count; k++) {
        let targetId: string;
        if (typeof d.target === 'number') {
          const target = data[num(source, `${w}.target`, d.target, { min: 0, integer: true }) + k];
          if (!target)
            throw invalid(
              source,
              `${w}: target index ${d.target + k} is outside this commit's ${data.length} data files`,
            );
          targetId = target.id;
        } else if (typeof d.target === 'string') {
          if (count !== 1) throw invalid(source, `${w}: a string target needs count 1`);
          if (!ids.has(d.target)) throw invalid(source, `${w}: target "${d.target}" names no earlier data file`);
          targetId = d.target;
        } else {
          throw invalid(source, `${w}.target must be a data index or a data file id`);
        }
        // A position delete lives in its target's partition unless it says otherwise.
        const partition = d.partition === undefined ? (ids.get(targetId) ?? null) : partitionOf(source, w, d.partition);
        notePartition(partition);
        positionDeletes.push({ partition, sizeBytes, records, targetId, deletesRows });
      }
    });
    return { atMs, data, equalityDeletes, positionDeletes };
  });

  if (partitions.labelled > 0 && partitions.unlabelled > 0) {
    throw invalid(source, 'either every file names a partition or none does');
  }
  return {
    name: spec.name,
    description: spec.description ?? '',
    durationMs,
    tickMs,
    base,
    commits,
    sizeModel,
    partitioned: partitions.labelled > 0,
  };
}

/** Reads and normalises a commit stream JSON file. */
export async function loadStreamFile(path: string): Promise<CommitStream> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    throw new FloeError('NotFound', `commit stream ${path}: cannot read (${(e as Error).message})`, {
      context: { file: path },
      cause: e,
    });
  }
  let spec: unknown;
  try {
    spec = parseJsonLossless(text);
  } catch (e) {
    throw invalid(path, `not valid JSON (${(e as Error).message})`);
  }
  return normalizeStream(spec as CommitStreamSpec, path);
}
