/**
 * Drives a real Iceberg table in a temp directory for the compaction properties: writes go through floe's
 * table writer (connectors/iceberg/write-table.ts), compaction through `compactIceberg` opened exactly as
 * `floe compact` opens a table, and reads through floe's scan. Every write is mirrored into the RowModel,
 * and every snapshot id is remembered with the model's rows at that point, for time-travel checks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { Field } from '../../model/index.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable, deleteByEquality } from '../../connectors/iceberg/write-table.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import { compactIceberg, type CompactReport } from '../../src/orchestration/compact-iceberg.js';
import type { TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { loadTableModel, openIcebergTable } from '../../connectors/iceberg/table.js';
import { scanTable } from '../../connectors/iceberg/scan.js';
import {
  COLUMNS,
  DECIMAL_SCALE,
  RowModel,
  canonicalRows,
  columnIndex,
  type Column,
  type Row,
  type Value,
} from './model.js';

const long = { kind: 'primitive', name: 'long' } as const;
const str = { kind: 'primitive', name: 'string' } as const;

export const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: long },
  { id: 2, name: 'part', required: false, type: str },
  {
    id: 3,
    name: 'd',
    required: false,
    type: { kind: 'primitive', name: 'decimal', precision: 38, scale: DECIMAL_SCALE },
  },
  { id: 4, name: 's', required: false, type: str },
  { id: 5, name: 'v', required: false, type: long },
];

export interface CompactionSpec {
  strategy: 'tiered' | 'binpack';
  options: Record<string, string>;
  partialProgress: boolean;
  maxConcurrentGroups: number;
}

export interface TableShape {
  formatVersion: 2 | 3;
  partitioned: boolean;
}

/** Something another writer commits while a compaction is between planning and commit. */
export type ConcurrentWrite = (t: TestTable) => Promise<void>;

export class TestTable {
  readonly model = new RowModel();
  /** snapshot id → expected canonical rows at that snapshot. */
  readonly history = new Map<bigint, string[]>();
  private readonly files = new FileIO();
  readonly io = this.files;

  private constructor(
    readonly root: string,
    readonly dir: string,
    readonly shape: TableShape,
  ) {}

  static async create(shape: TableShape): Promise<TestTable> {
    const root = mkdtempSync(path.join(tmpdir(), 'floe-compaction-prop-'));
    const t = new TestTable(root, path.join(root, 't'), shape);
    await createIcebergTable(t.io, t.dir, {
      formatVersion: shape.formatVersion,
      fields: FIELDS,
      partitionBy: shape.partitioned ? ['part'] : [],
    });
    return t;
  }

  dispose(): void {
    this.files.destroy();
    rmSync(this.root, { recursive: true, force: true });
  }

  async append(rows: readonly Row[]): Promise<bigint> {
    const id = await appendRows(
      this.io,
      this.dir,
      rows.map((r) => Object.fromEntries(COLUMNS.map((c, i) => [c, r[i]]))),
    );
    this.model.append(rows);
    this.history.set(id, this.model.expected());
    return id;
  }

  async deleteEq(columns: readonly Column[], keys: readonly (readonly Value[])[]): Promise<bigint> {
    const id = await deleteByEquality(
      this.io,
      this.dir,
      [...columns],
      keys.map((k) => [...k]),
    );
    this.model.deleteWhere(columns, keys);
    this.history.set(id, this.model.expected());
    return id;
  }

  /** The key of `row` on `columns`. */
  static keyOf(row: Row, columns: readonly Column[]): Value[] {
    return columns.map((c) => row[columnIndex(c)]!);
  }

  /**
   * Compacts as `floe compact` does. `concurrent` runs once, right before floe's first commit attempt reads
   * the table's current metadata — i.e. it lands between planning and commit, as a racing writer's would.
   */
  async compact(spec: CompactionSpec, concurrent?: ConcurrentWrite): Promise<CompactReport> {
    const opened = await openIcebergForWrite(this.dir, {});
    try {
      let pending = concurrent;
      const ops: TableOperations = {
        refresh: async () => {
          if (pending) {
            const run = pending;
            pending = undefined;
            await run(this);
          }
          return opened.ops!.refresh();
        },
        commit: (base, next) => opened.ops!.commit(base, next),
      };
      const report = await compactIceberg(opened.table, opened.io, ops, {
        strategy: spec.strategy,
        options: spec.options,
        partialProgress: spec.partialProgress,
        maxConcurrentGroups: spec.maxConcurrentGroups,
      });
      // compaction changes no row: each snapshot it made holds what the model holds now
      for (const s of report.snapshots) this.history.set(BigInt(s), this.model.expected());
      return report;
    } finally {
      opened.files.destroy();
    }
  }

  /** Live rows by floe's scan, canonical and sorted (current snapshot, or `snapshotId`). */
  async scan(snapshotId?: bigint): Promise<string[]> {
    const table = await openIcebergTable(this.dir, { io: this.io });
    const rows: unknown[][] = [];
    for await (const b of scanTable(table, snapshotId === undefined ? {} : { snapshotId })) {
      const order = COLUMNS.map((c) => b.fields.findIndex((f) => f.name === c));
      for (const r of b.rows) rows.push(order.map((i) => r[i]));
    }
    return canonicalRows(rows);
  }

  async currentSnapshotId(): Promise<bigint | undefined> {
    return (await openIcebergTable(this.dir, { io: this.io })).metadata.currentSnapshotId;
  }

  /** Live data and delete file counts, and the data files' sequence numbers. */
  async fileStats(): Promise<{ data: number; deletes: number; dataSeqs: bigint[]; lastSeq: bigint }> {
    const table = await openIcebergTable(this.dir, { io: this.io });
    const m = await loadTableModel(table);
    return {
      data: m.dataFiles.length,
      deletes: m.deleteFiles.length,
      dataSeqs: m.dataFiles.map((f) => f.dataSequenceNumber),
      lastSeq: m.lastSequenceNumber,
    };
  }
}
