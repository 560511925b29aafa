/**
 * The write model shared by the Paimon compaction interop tests: a deterministic stream of Java commits
 * (inserts, updates, deletes over 2 partitions × 2 buckets) and the rows each merge engine must show
 * after them (kept here, independently of floe), plus the floe and pypaimon readers in canonical lines.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  canonicalLine,
  canonicalRow,
  repoRoot,
  type CanonicalRow,
  type PaimonChange,
  type PaimonTableSpec,
} from '../oracles/index.js';
import { scanPaimon } from '../../connectors/paimon/index.js';

export const TYPES = { id: 'int', p: 'string', v: 'string', n: 'long' };
export type Row = { id: number; p: string; v: string | null; n: number | null };
export type Engine = 'deduplicate' | 'first-row' | 'partial-update' | 'aggregation';

export const python = path.join(repoRoot, '.venv/bin/python');
const pyRead = path.join(repoRoot, 'integration/paimon-compaction/pypaimon_read.py');

/** The visible rows after the writes, by each engine's rule (written here, independently of floe). */
export class Model {
  rows = new Map<string, Row>();
  constructor(private engine: Engine) {}
  apply(kind: string, r: Row): void {
    const k = `${r.p}|${r.id}`;
    const old = this.rows.get(k);
    const retract = kind === '-D' || kind === '-U';
    switch (this.engine) {
      case 'deduplicate':
        if (retract) this.rows.delete(k);
        else this.rows.set(k, { ...r });
        break;
      case 'first-row':
        if (!old && !retract) this.rows.set(k, { ...r });
        break;
      case 'partial-update':
        this.rows.set(k, old ? { ...old, v: r.v ?? old.v, n: r.n ?? old.n } : { ...r });
        break;
      case 'aggregation': // n: sum, v: last_non_null_value
        this.rows.set(k, old ? { ...old, v: r.v ?? old.v, n: r.n === null ? old.n : (old.n ?? 0) + r.n } : { ...r });
        break;
    }
  }
  lines(): string[] {
    return [...this.rows.values()]
      .map((r) => canonicalLine(canonicalRow(TYPES, r as unknown as Record<string, unknown>)))
      .sort();
  }
}

/**
 * A deterministic stream of commits: 6 batches (of up to 8 changes over 12 ids) over 2 partitions × 2
 * buckets, with updates and deletes; `shape` changes the counts.
 */
export function commits(
  engine: Engine,
  round: number,
  model: Model,
  shape: { batches?: number; perBatch?: number; keys?: number } = {},
): PaimonChange[][] {
  const { batches = 6, perBatch = 8, keys = 12 } = shape;
  const out: PaimonChange[][] = [];
  let seed = 7 + round * 101 + engine.length;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8) % n;
  for (let c = 0; c < batches; c++) {
    const batch: PaimonChange[] = [];
    const seen = new Set<string>();
    for (let i = 0; i < perBatch; i++) {
      const p = rnd(2) ? 'a' : 'b';
      const id = rnd(keys);
      const k = `${p}|${id}`;
      if (seen.has(k)) continue; // one change per key per batch keeps the model's order unambiguous
      seen.add(k);
      const exists = model.rows.has(k);
      const del = engine === 'deduplicate' && exists && rnd(4) === 0;
      const partial = (engine === 'partial-update' || engine === 'aggregation') && rnd(3) === 0;
      const row: Row = {
        id,
        p,
        v: partial ? null : `v${round}.${c}.${i}`,
        n: partial && rnd(2) ? null : round * 100000 + c * 1000 + i,
      };
      const kind = del ? '-D' : exists && engine === 'deduplicate' ? '+U' : '+I';
      const sent = del ? { ...model.rows.get(k)! } : row;
      batch.push({ kind, row: sent as unknown as PaimonChange['row'] });
      model.apply(kind, sent);
    }
    out.push(batch);
  }
  return out;
}

export function spec(
  engine: Engine,
  table: string,
  batches: PaimonChange[][],
  create: boolean,
  extraOptions: Record<string, string> = {},
): PaimonTableSpec {
  const options: Record<string, string> = { bucket: '2', 'write-only': 'true', 'merge-engine': engine };
  if (engine === 'aggregation') options['fields.n.aggregate-function'] = 'sum';
  Object.assign(options, extraOptions);
  const s: PaimonTableSpec = { database: 'db', table, commits: batches };
  if (create)
    Object.assign(s, {
      fields: [
        { name: 'id', type: 'int' },
        { name: 'p', type: 'string' },
        { name: 'v', type: 'string' },
        { name: 'n', type: 'long' },
      ],
      primaryKeys: ['id', 'p'],
      partitionKeys: ['p'],
      options,
    });
  return s;
}

export const lines = (rows: CanonicalRow[]) => rows.map(canonicalLine).sort();

export async function floeLines(loc: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(loc)) out.push(canonicalLine(canonicalRow(TYPES, r)));
  return out.sort();
}

export function pypaimonLines(warehouse: string, table: string): string[] {
  const r = spawnSync(python, [pyRead, warehouse, `db.${table}`], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pypaimon read of ${table} failed: ${r.stderr.slice(-2000)}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => canonicalLine(canonicalRow(TYPES, JSON.parse(l))))
    .sort();
}
