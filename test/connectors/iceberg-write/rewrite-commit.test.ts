import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { IcebergRewriteCommitter, type NewContentFile } from '../../../connectors/iceberg/commit-rewrite.js';
import { FilesystemTableOperations } from '../../../connectors/iceberg/commit-ops.js';
import { parseMetadataBytes, findSnapshot } from '../../../connectors/iceberg/metadata.js';
import { liveFilesOf } from '../../../connectors/iceberg/manifests.js';
import { buildTable, localCommitIO, type SyntheticFile } from './synthetic-table.js';
import { isFloeError } from '../../../util/errors.js';
import { currentSnapshotIdOf } from '../../../connectors/iceberg/commit-metadata.js';
import { FileIO } from '../../../connectors/storage/file-io.js';

function tmp(): string {
  return mkdtempSync(path.join(tmpdir(), 'floe-commit-'));
}

async function readBack(loc: string, version: number) {
  const file = path.join(loc, 'metadata', `v${version}.metadata.json`);
  const md = parseMetadataBytes(readFileSync(file), file);
  const current = currentSnapshotIdOf(md.raw)!;
  const snap = findSnapshot(md, current);
  const files = await liveFilesOf(new FileIO(), md, snap);
  return { md, snap, files, current };
}

const data = (loc: string, n: number, region = 'eu'): SyntheticFile[] =>
  Array.from({ length: n }, (_, i) => ({
    path: `${loc}/data/${region}-${i}.parquet`,
    region,
    rows: 10 + i,
    size: 1000 + i,
  }));

function output(loc: string, name: string, rows: number, from: string): NewContentFile {
  return {
    content: 0,
    path: `${loc}/data/${name}.parquet`,
    format: 'PARQUET',
    recordCount: rows,
    sizeBytes: 5000,
    specId: 0,
    partitionOf: from,
  };
}

describe('Iceberg replace commit', () => {
  it('replaces files, keeps the starting sequence number and writes correct totals', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = [...data(loc0, 3, 'eu'), ...data(loc0, 2, 'us')];
    const loc = await buildTable(root, { partitioned: true, data: files });
    const io = localCommitIO(root);
    const committer = new IcebergRewriteCommitter(io, new FilesystemTableOperations(io, `${loc}/metadata`));
    const before = await readBack(loc, 1);
    const eu = files.filter((f) => f.region === 'eu');
    const res = await committer.commit({
      baseSnapshotId: before.current!,
      groups: [
        {
          id: 'g1',
          replacedDataFiles: eu.map((f) => f.path),
          removedDeleteFiles: [],
          addedDataFiles: [output(loc, 'eu-compacted', 33, eu[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    expect(res.failedGroups).toEqual([]);
    expect(readFileSync(path.join(loc, 'metadata', 'version-hint.text'), 'utf8')).toBe('2');
    const after = await readBack(loc, 2);
    expect(after.current).toBe(res.snapshotId);
    expect(after.snap.operation).toBe('replace');
    expect(after.snap.parentSnapshotId).toBe(before.current);
    expect(after.md.lastSequenceNumber).toBe(2n);
    const livePaths = after.files.dataFiles.map((f) => f.path).sort();
    expect(livePaths).toEqual(
      [`${loc}/data/eu-compacted.parquet`, ...files.filter((f) => f.region === 'us').map((f) => f.path)].sort(),
    );
    const out = after.files.dataFiles.find((f) => f.path.endsWith('eu-compacted.parquet'))!;
    expect(out.dataSequenceNumber).toBe(1n); // the starting snapshot's
    expect(out.fileSequenceNumber).toBe(2n);
    expect(out.partition).toEqual(['eu']);
    // untouched US files keep their original sequence numbers
    for (const f of after.files.dataFiles.filter((x) => !x.path.includes('eu'))) expect(f.dataSequenceNumber).toBe(1n);
    const s = after.snap.summary;
    expect(s['deleted-data-files']).toBe('3');
    expect(s['added-data-files']).toBe('1');
    expect(s['deleted-records']).toBe(String(10 + 11 + 12));
    expect(s['total-data-files']).toBe('3');
    expect(s['total-records']).toBe(String(files.reduce((n, f) => n + f.rows, 0) - 33 + 33));
    expect(s['changed-partition-count']).toBe('1');
    // the metadata log remembers v1, the snapshot log both snapshots
    expect(after.md.metadataLog.map((m) => path.basename(m.metadataFile))).toEqual(['v1.metadata.json']);
    expect(after.md.snapshotLog.map((x) => x.snapshotId)).toEqual([before.current, res.snapshotId]);
  });

  it('retries after losing the race for the next version and rebases onto the winner', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = [...data(loc0, 2, 'eu'), ...data(loc0, 2, 'us')];
    const loc = await buildTable(root, { partitioned: true, data: files });
    const io = localCommitIO(root);
    const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
    const start = (await readBack(loc, 1)).current;
    const eu = files.filter((f) => f.region === 'eu');
    const us = files.filter((f) => f.region === 'us');
    // two committers start from the same snapshot; both publish; exactly one wins v2, the other rebases to v3
    const a = new IcebergRewriteCommitter(io, ops).commit({
      baseSnapshotId: start,
      groups: [
        {
          id: 'eu',
          replacedDataFiles: eu.map((f) => f.path),
          removedDeleteFiles: [],
          addedDataFiles: [output(loc, 'eu-c', 21, eu[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    const b = new IcebergRewriteCommitter(io, ops).commit({
      baseSnapshotId: start,
      groups: [
        {
          id: 'us',
          replacedDataFiles: us.map((f) => f.path),
          removedDeleteFiles: [],
          addedDataFiles: [output(loc, 'us-c', 21, us[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    const [ra, rb] = await Promise.all([a, b]);
    expect([ra.metadataLocation, rb.metadataLocation].map((l) => path.basename(l)).sort()).toEqual([
      'v2.metadata.json',
      'v3.metadata.json',
    ]);
    const final = await readBack(loc, 3);
    expect(final.files.dataFiles.map((f) => path.basename(f.path)).sort()).toEqual(['eu-c.parquet', 'us-c.parquet']);
    expect(final.md.snapshots).toHaveLength(3);
  });

  it('fails a group whose replaced file a concurrent commit removed, and cleans up its manifests', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = data(loc0, 3, 'eu');
    const loc = await buildTable(root, { partitioned: true, data: files });
    const io = localCommitIO(root);
    const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
    const start = (await readBack(loc, 1)).current;
    await new IcebergRewriteCommitter(io, ops).commit({
      baseSnapshotId: start,
      groups: [
        {
          id: 'first',
          replacedDataFiles: files.map((f) => f.path),
          removedDeleteFiles: [],
          addedDataFiles: [output(loc, 'first', 33, files[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    const second = new IcebergRewriteCommitter(io, ops).commit({
      baseSnapshotId: start,
      groups: [
        {
          id: 'second',
          replacedDataFiles: files.slice(0, 2).map((f) => f.path),
          removedDeleteFiles: [],
          addedDataFiles: [output(loc, 'second', 21, files[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    await expect(second).rejects.toSatisfy(
      (e: unknown) => isFloeError(e, 'PreconditionFailed') && /no longer live/.test((e as Error).message),
    );
    const final = await readBack(loc, 2);
    expect(final.files.dataFiles.map((f) => path.basename(f.path))).toEqual(['first.parquet']);
  });

  it('fails a group when a position delete for a replaced file was committed meanwhile', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = data(loc0, 2, 'eu');
    // the table's second snapshot adds a file-scoped position delete against file 0
    const loc = await buildTable(root, {
      partitioned: true,
      data: files,
      deletes: [
        {
          path: `${loc0}/data/pos-0.parquet`,
          region: 'eu',
          rows: 1,
          size: 100,
          content: 1,
          referencedDataFile: files[0]!.path,
        },
      ],
    });
    const io = localCommitIO(root);
    const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
    const md = (await readBack(loc, 1)).md;
    const first = md.snapshots[0]!.snapshotId; // planned before the delete landed
    const attempt = new IcebergRewriteCommitter(io, ops).commit({
      baseSnapshotId: first,
      groups: [
        {
          id: 'g',
          replacedDataFiles: files.map((f) => f.path),
          removedDeleteFiles: [],
          addedDataFiles: [output(loc, 'c', 21, files[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    await expect(attempt).rejects.toSatisfy(
      (e: unknown) => isFloeError(e, 'PreconditionFailed') && /position delete/.test((e as Error).message),
    );
  });

  it('removes delete files the plan marks removable and counts them', async () => {
    const root = tmp();
    const loc0 = path.join(root, 'db', 't');
    const files = data(loc0, 2, 'eu');
    const loc = await buildTable(root, {
      partitioned: true,
      data: files,
      deletes: [{ path: `${loc0}/data/eq-0.parquet`, region: 'eu', rows: 4, size: 100, content: 2, equalityIds: [1] }],
    });
    const io = localCommitIO(root);
    const ops = new FilesystemTableOperations(io, `${loc}/metadata`);
    const res = await new IcebergRewriteCommitter(io, ops).commit({
      baseSnapshotId: (await readBack(loc, 1)).current,
      groups: [
        {
          id: 'g',
          replacedDataFiles: files.map((f) => f.path),
          removedDeleteFiles: [`${loc0}/data/eq-0.parquet`],
          addedDataFiles: [output(loc, 'c', 17, files[0]!.path)],
          addedDeleteFiles: [],
        },
      ],
    });
    const after = await readBack(loc, 2);
    expect(after.files.deleteFiles).toEqual([]);
    expect(res.summary['removed-equality-delete-files']).toBe('1');
    expect(res.summary['removed-equality-deletes']).toBe('4');
    // the output took the starting snapshot's sequence number (2), so the removed delete (seq 2) would not apply anyway
    expect(after.files.dataFiles[0]!.dataSequenceNumber).toBe(2n);
  });
});
