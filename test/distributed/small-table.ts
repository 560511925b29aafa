/** A small-files Iceberg table on local disk for the distributed tests, and how to read it back. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileIO } from '../../connectors/storage/index.js';
import type { Field } from '../../model/index.js';
import { appendRows, createIcebergTable } from '../../connectors/iceberg/write-table.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import { scanTable } from '../../connectors/iceberg/scan.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
];

export interface SmallTable {
  dir: string;
  rows(): Promise<string[]>;
  shape(): Promise<{
    dataFiles: number;
    snapshots: { id: string; operation: string; summary: Record<string, string> }[];
  }>;
  cleanup(): void;
}

/** `appends` commits of `rowsPerAppend` rows each, partitioned by region (two partitions → two tasks). */
export async function smallTable(appends = 8, rowsPerAppend = 20): Promise<SmallTable> {
  const root = mkdtempSync(path.join(tmpdir(), 'floe-dist-'));
  const dir = path.join(root, 'wh', 'events');
  const files = new FileIO();
  const io = files;
  await createIcebergTable(io, dir, { formatVersion: 2, fields: FIELDS, partitionBy: ['region'] });
  for (let a = 0; a < appends; a++) {
    await appendRows(
      io,
      dir,
      Array.from({ length: rowsPerAppend }, (_, i) => ({
        id: BigInt(a * 1000 + i) * 3_000_000_000_000n,
        s: `row ${a}.${i}`,
        region: i % 2 ? 'eu' : 'us',
      })),
    );
  }
  return {
    dir,
    async rows() {
      const table = await openIcebergTable(dir, { io });
      const out: string[] = [];
      for await (const b of scanTable(table)) {
        const idx = ['id', 's', 'region'].map((n) => b.fields.findIndex((f) => f.name === n));
        for (const r of b.rows) out.push(idx.map((i) => String(r[i])).join('|'));
      }
      return out.sort();
    },
    async shape() {
      const table = await openIcebergTable(dir, { io });
      const m = await loadTableModel(table);
      return {
        dataFiles: m.dataFiles.length,
        snapshots: table.metadata.snapshots.map((s) => ({
          id: s.snapshotId.toString(),
          operation: s.operation,
          summary: s.summary,
        })),
      };
    },
    cleanup() {
      files.destroy();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
