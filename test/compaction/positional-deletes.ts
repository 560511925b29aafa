/**
 * Positional deletes for test tables, written the way other engines write them (floe writes neither):
 * - v3: deletion vectors, one Puffin file holding one `deletion-vector-v1` blob per data file, each blob its
 *   own manifest entry (`referenced_data_file`, `content_offset`, `content_size_in_bytes`). A data file
 *   that already has a DV gets a new one with the old positions and the new (at most one DV per data file).
 * - v2: position delete files, one per partition, naming several data files.
 *
 * The model is updated from the rows' unique `v` values (arbitraries.ts `withUniqueV`) read from the data
 * files at the deleted positions, never from floe's scan: a position whose row is live in the model
 * deletes that row there; a position whose row is already deleted changes nothing.
 */
import { randomUUID } from 'node:crypto';
import * as arrow from 'apache-arrow';
import { writeParquet } from '../../connectors/formats/parquet/index.js';
import { partitionKey } from '../../model/index.js';
import type { TestTable } from './harness.js';
import { openIcebergForWrite } from '../../connectors/iceberg/open-for-write.js';
import { IcebergRewriteCommitter, type NewContentFile } from '../../connectors/iceberg/commit-rewrite.js';
import { writeDeletionVectorPuffin } from '../../connectors/iceberg/puffin-write.js';
import { decodeDeletionVector } from '../../connectors/iceberg/puffin.js';
import { loadTableModel } from '../../connectors/iceberg/table.js';
import { openParquet, readColumnsById } from '../../connectors/iceberg/parquet-reader.js';
import { deleteFileId } from '../../src/core/planning/deletes.js';
import type { DataFile, DeletionVectorFile } from '../../model/index.js';

export interface DvTarget {
  /** A live data file's path, or an index into the live data files sorted by path (taken modulo their count). */
  file: number | string;
  /** Row positions (taken modulo the file's record count). */
  positions: number[];
}

/** The `v` column of a data file, position by position (unique per written row in DV histories). */
export async function vColumn(t: TestTable, file: DataFile): Promise<(bigint | null)[]> {
  const pq = openParquet(await t.io.read(file.path), file.path);
  const rows = await readColumnsById(pq, [
    { id: 5, name: 'v', required: false, type: { kind: 'primitive', name: 'long' } },
  ]);
  return rows.map((r) => (r[0] === undefined || r[0] === null ? null : BigInt(r[0] as bigint)));
}

/**
 * Commits one Puffin file with a DV for every target file (several targets share the Puffin). Returns the
 * snapshot id, or undefined when the table has no data file.
 */
export async function commitDeletionVectors(t: TestTable, targets: readonly DvTarget[]): Promise<bigint | undefined> {
  const opened = await openIcebergForWrite(t.dir, {});
  try {
    const model = await loadTableModel(opened.table);
    if (model.dataFiles.length === 0 || model.currentSnapshotId === undefined) return undefined;
    const files = [...model.dataFiles].sort((a, b) => (a.path < b.path ? -1 : 1));
    const byFile = new Map<DataFile, Set<number>>();
    for (const tg of targets) {
      const f = typeof tg.file === 'string' ? files.find((x) => x.path === tg.file) : files[tg.file % files.length];
      if (!f) throw new Error(`no live data file ${tg.file}`);
      const set = byFile.get(f) ?? new Set<number>();
      for (const p of tg.positions) set.add(p % Math.max(1, f.recordCount));
      byFile.set(f, set);
    }
    const dvOf = new Map<string, DeletionVectorFile>();
    for (const d of model.deleteFiles) if (d.content === 'deletion-vector') dvOf.set(d.referencedDataFile, d);
    const positionsOf = async (d: DeletionVectorFile): Promise<number[]> => {
      const blob = await t.io.read(d.path);
      return decodeDeletionVector(blob.subarray(d.contentOffset, d.contentOffset + d.contentSizeBytes), d.path);
    };
    // A Puffin file that holds a DV being replaced is retired whole: its other DVs move into the new file.
    // Both the entry ids and the bare path are named, so the commit is right whichever way the committer
    // identifies DV entries — the table this writes never depends on the code under test.
    const retired = new Set(
      [...byFile.keys()].map((f) => dvOf.get(f.path)?.path).filter((p): p is string => p !== undefined),
    );
    const liveByPath = new Map(files.map((f) => [f.path, f]));
    const inputs: { referencedDataFile: string; positions: number[] }[] = [];
    const owners = new Map<string, DataFile>();
    const replaced: string[] = [...retired];
    for (const d of model.deleteFiles) {
      if (d.content !== 'deletion-vector' || !retired.has(d.path)) continue;
      replaced.push(deleteFileId(d));
      const f = liveByPath.get(d.referencedDataFile);
      if (f && !byFile.has(f)) {
        inputs.push({ referencedDataFile: f.path, positions: await positionsOf(d) });
        owners.set(f.path, f);
      }
    }
    const deletedV: bigint[] = [];
    for (const [f, set] of byFile) {
      const old = dvOf.get(f.path);
      const positions = new Set(set);
      if (old) for (const p of await positionsOf(old)) positions.add(p);
      inputs.push({ referencedDataFile: f.path, positions: [...positions] });
      owners.set(f.path, f);
      const vs = await vColumn(t, f);
      for (const p of set) if (vs[p] !== null && vs[p] !== undefined) deletedV.push(vs[p]!);
    }
    const { bytes, blobs } = writeDeletionVectorPuffin(inputs, 'floe-tests');
    const location = `${opened.table.metadata.location.replace(/\/$/, '')}/data/${randomUUID()}-dv.puffin`;
    await opened.io.createNew(location, bytes);
    const added: NewContentFile[] = blobs.map((b) => {
      const f = owners.get(b.referencedDataFile)!;
      return {
        content: 1,
        path: location,
        format: 'PUFFIN',
        recordCount: b.cardinality,
        sizeBytes: bytes.length,
        specId: f.specId,
        partitionOf: f.path,
        referencedDataFile: f.path,
        contentOffset: BigInt(b.contentOffset),
        contentSizeInBytes: BigInt(b.contentSizeBytes),
      };
    });
    const res = await new IcebergRewriteCommitter(opened.io, opened.ops!).commit({
      baseSnapshotId: model.currentSnapshotId,
      groups: [
        { id: 'dv', replacedDataFiles: [], removedDeleteFiles: replaced, addedDataFiles: [], addedDeleteFiles: added },
      ],
      useStartingSequenceNumber: false,
      summary: { 'floe.test': 'deletion-vectors' },
    });
    t.model.deleteByV(deletedV);
    t.history.set(res.snapshotId, t.model.expected());
    return res.snapshotId;
  } finally {
    opened.files.destroy();
  }
}

const FILE_PATH_ID = 2147483546;
const POS_ID = 2147483545;

/** A v2 position delete file: (file_path, pos) rows sorted as the spec asks. */
async function positionDeleteParquet(rows: { path: string; pos: number }[]): Promise<Uint8Array> {
  rows.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.pos - b.pos));
  const schema = new arrow.Schema([
    new arrow.Field('file_path', new arrow.Utf8(), false, new Map([['PARQUET:field_id', String(FILE_PATH_ID)]])),
    new arrow.Field('pos', new arrow.Int64(), false, new Map([['PARQUET:field_id', String(POS_ID)]])),
  ]);
  const paths = arrow.vectorFromArray(
    rows.map((r) => r.path),
    new arrow.Utf8(),
  );
  const pos = arrow.makeVector(BigInt64Array.from(rows, (r) => BigInt(r.pos)));
  const batch = new arrow.RecordBatch(
    schema,
    arrow.makeData({
      type: new arrow.Struct(schema.fields),
      length: rows.length,
      nullCount: 0,
      children: [paths.data[0]!, pos.data[0]!],
    }),
  );
  return (
    await writeParquet(new arrow.Table(schema, [batch]), 'position deletes', { codec: 'zstd', createdBy: 'floe-tests' })
  ).bytes;
}

/**
 * Commits position delete files (v2): one per partition, each naming every target file of that partition —
 * so one file references several data files and carries no `referenced_data_file`.
 */
export async function commitPositionDeletes(t: TestTable, targets: readonly DvTarget[]): Promise<bigint | undefined> {
  const opened = await openIcebergForWrite(t.dir, {});
  try {
    const model = await loadTableModel(opened.table);
    if (model.dataFiles.length === 0 || model.currentSnapshotId === undefined) return undefined;
    const files = [...model.dataFiles].sort((a, b) => (a.path < b.path ? -1 : 1));
    const byPartition = new Map<string, { anchor: DataFile; rows: { path: string; pos: number }[] }>();
    const deletedV: bigint[] = [];
    for (const tg of targets) {
      const f = typeof tg.file === 'string' ? files.find((x) => x.path === tg.file) : files[tg.file % files.length];
      if (!f) throw new Error(`no live data file ${tg.file}`);
      const key = partitionKey(f.specId, f.partition);
      const group = byPartition.get(key) ?? { anchor: f, rows: [] };
      const vs = await vColumn(t, f);
      for (const p0 of tg.positions) {
        const pos = p0 % Math.max(1, f.recordCount);
        if (group.rows.some((r) => r.path === f.path && r.pos === pos)) continue;
        group.rows.push({ path: f.path, pos });
        if (vs[pos] !== null && vs[pos] !== undefined) deletedV.push(vs[pos]!);
      }
      byPartition.set(key, group);
    }
    const added: NewContentFile[] = [];
    for (const { anchor, rows } of byPartition.values()) {
      const bytes = await positionDeleteParquet(rows);
      const location = `${opened.table.metadata.location.replace(/\/$/, '')}/data/${randomUUID()}-pos-delete.parquet`;
      await opened.io.createNew(location, bytes);
      added.push({
        content: 1,
        path: location,
        format: 'PARQUET',
        recordCount: rows.length,
        sizeBytes: bytes.length,
        specId: anchor.specId,
        partitionOf: anchor.path,
      });
    }
    const res = await new IcebergRewriteCommitter(opened.io, opened.ops!).commit({
      baseSnapshotId: model.currentSnapshotId,
      groups: [
        { id: 'pos', replacedDataFiles: [], removedDeleteFiles: [], addedDataFiles: [], addedDeleteFiles: added },
      ],
      useStartingSequenceNumber: false,
      summary: { 'floe.test': 'position-deletes' },
    });
    t.model.deleteByV(deletedV);
    t.history.set(res.snapshotId, t.model.expected());
    return res.snapshotId;
  } finally {
    opened.files.destroy();
  }
}
