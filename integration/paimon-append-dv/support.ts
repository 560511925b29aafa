/**
 * Append tables with deletion vectors, written by Java Paimon 1.3: rows with incompressible values (so
 * file sizes are predictable), deletes as Paimon's Spark DELETE commits them (javaPaimon.appendDelete),
 * the rows that must be visible kept here by hand, and the DVs of a table read back per data file.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { canonicalLine, canonicalRow, javaPaimon, type PaimonChange } from '../oracles/index.js';
import { readDeletionVector } from '../../connectors/paimon/deletion-vector.js';
import type { PaimonTable } from '../../connectors/paimon/table.js';
import { TYPES, type Row } from '../paimon-compaction/model.js';

export const FIELDS = [
  { name: 'id', type: 'int' },
  { name: 'p', type: 'string' },
  { name: 'v', type: 'string' },
  { name: 'n', type: 'long' },
];

const value = (id: number) => createHash('sha256').update(`v${id}`).digest('hex').slice(0, 40);

/** Inserted minus deleted rows, independently of any engine. */
export class AppendModel {
  private rows = new Map<number, Row>();
  /** `count` rows with ids from `start`, alternating partitions a/b. */
  batch(start: number, count: number): PaimonChange[] {
    const out: PaimonChange[] = [];
    for (let i = 0; i < count; i++) {
      const id = start + i;
      const r: Row = { id, p: id % 2 ? 'a' : 'b', v: value(id), n: id * 7 };
      this.rows.set(id, r);
      out.push({ row: r as unknown as Record<string, unknown> } as PaimonChange);
    }
    return out;
  }
  async delete(warehouse: string, table: string, ids: number[]): Promise<void> {
    const r = await javaPaimon.appendDelete(warehouse, { database: 'db', table, column: 'id', values: ids });
    const live = ids.filter((id) => this.rows.has(id)).length;
    if (r.deleted !== live) throw new Error(`Java deleted ${r.deleted} rows of ${table}, ${live} expected`);
    for (const id of ids) this.rows.delete(id);
  }
  lines(): string[] {
    return [...this.rows.values()]
      .map((r) => canonicalLine(canonicalRow(TYPES, r as unknown as Record<string, unknown>)))
      .sort();
  }
}

/** Deleted positions per live data file name, read with floe's DV reader. */
export async function dvsOf(t: PaimonTable): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const f of t.files) {
    if (!f.dv) continue;
    const bytes = await t.io.read(f.dv.indexFile);
    out.set(f.meta.fileName, readDeletionVector(bytes, f.dv.offset, f.dv.length, f.dv.indexFile));
  }
  return out;
}

/** Every DV range of the snapshot's index names a live data file (no DV left behind for a rewritten file). */
export function danglingDvRanges(t: PaimonTable): string[] {
  const live = new Set(t.files.map((f) => f.meta.fileName));
  return t.indexEntries
    .filter((e) => e.indexType === 'DELETION_VECTORS')
    .flatMap((e) => (e.dvRanges ?? []).map((r) => r.dataFileName))
    .filter((n) => !live.has(n));
}

export const allFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));
