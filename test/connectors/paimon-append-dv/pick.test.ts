/**
 * Issue 15: picking in append tables with deletion vectors, by Java 1.3's rules — bucket-unaware:
 * AppendCompactCoordinator.packInDeletionVectorVMode (+ shouldCompact's delete-ratio test); fixed buckets:
 * BucketedAppendCompactManager's FullCompactTask with a DV maintainer. Expected picks are worked out by
 * hand from those rules, not by running the code.
 */
import { describe, expect, it } from 'vitest';
import { pickAppendFiles } from '../../../connectors/paimon/compact-append.js';
import type { PaimonFile } from '../../../connectors/paimon/table.js';

const MB = 1024 * 1024;
let seq = 0n;
function file(name: string, sizeMb: number, dv?: { index: string; deleted?: number }, rows = 100): PaimonFile {
  const s = seq;
  seq += 1000n;
  const f: PaimonFile = {
    meta: {
      fileName: name,
      fileSize: BigInt(Math.round(sizeMb * MB)),
      rowCount: BigInt(rows),
      minKey: new Uint8Array(),
      maxKey: new Uint8Array(),
      keyStats: null,
      valueStats: null,
      minSequenceNumber: s,
      maxSequenceNumber: s + 999n,
      schemaId: 0,
      level: 0,
      extraFiles: [],
    },
    path: `/t/bucket-0/${name}`,
    partition: [],
    partitionBytes: new Uint8Array(),
    bucket: 0,
    totalBuckets: -1,
  };
  if (dv)
    f.dv = {
      indexFile: `/t/index/${dv.index}`,
      offset: 1,
      length: 10,
      ...(dv.deleted !== undefined ? { cardinality: BigInt(dv.deleted) } : {}),
    };
  return f;
}
const names = (fs: PaimonFile[]) => fs.map((f) => f.meta.fileName).sort();
const UNAWARE_DV = { 'deletion-vectors.enabled': 'true' };
const T = { full: false, targetFileSize: 256 * MB };

describe('bucket-unaware append table with deletion vectors (AppendCompactCoordinator, DV mode)', () => {
  it('a single small file with a DV is compacted on its own (files with DVs must be compacted)', () => {
    const p = pickAppendFiles([file('a', 1, { index: 'i1', deleted: 3 })], UNAWARE_DV, T);
    expect(names(p.files)).toEqual(['a']);
  });

  it('one small file without a DV is left alone; two are below compaction.min.file-num', () => {
    expect(pickAppendFiles([file('a', 1)], UNAWARE_DV, T).files).toEqual([]);
    expect(pickAppendFiles([file('a', 1), file('b', 1)], UNAWARE_DV, T).files).toEqual([]);
  });

  it('a large file (≥ target × 0.7) is compacted only when its DV deletes more than 20% of its rows', () => {
    const big = file('big', 200, { index: 'i1', deleted: 20 }); // 20 of 100 rows: not > 0.2
    const bigger = file('bigger', 200, { index: 'i1', deleted: 21 });
    const unknown = file('unknown', 200, { index: 'i2' }); // no cardinality: too high, as Java
    expect(pickAppendFiles([big], UNAWARE_DV, T).files).toEqual([]);
    expect(names(pickAppendFiles([big, bigger, unknown], UNAWARE_DV, T).files)).toEqual(['bigger', 'unknown']);
    // the threshold is the table's compaction.delete-ratio-threshold
    expect(
      names(pickAppendFiles([big], { ...UNAWARE_DV, 'compaction.delete-ratio-threshold': '0.1' }, T).files),
    ).toEqual(['big']);
  });

  it('files with DVs are compacted whatever their number; files without pack by the plain rules', () => {
    const fs = [
      file('d1', 1, { index: 'i1', deleted: 1 }),
      file('d2', 1, { index: 'i2', deleted: 1 }),
      ...['n1', 'n2', 'n3', 'n4'].map((n) => file(n, 1)),
    ];
    // 4 files without DV < min.file-num 5 → left; both DV files compacted
    expect(names(pickAppendFiles(fs, UNAWARE_DV, T).files)).toEqual(['d1', 'd2']);
    expect(names(pickAppendFiles([...fs, file('n5', 1)], UNAWARE_DV, T).files)).toEqual([
      'd1',
      'd2',
      'n1',
      'n2',
      'n3',
      'n4',
      'n5',
    ]);
  });

  it('the picked files come in sequence order (the rewrite renumbers from the first)', () => {
    const a = file('a', 3, { index: 'i1', deleted: 1 });
    const b = file('b', 1, { index: 'i2', deleted: 1 });
    expect(pickAppendFiles([b, a], UNAWARE_DV, T).files.map((f) => f.meta.fileName)).toEqual(['a', 'b']);
  });
});

describe('fixed-bucket append table with deletion vectors (BucketedAppendCompactManager)', () => {
  const FIXED_DV = { 'deletion-vectors.enabled': 'true', bucket: '2' };
  it('--full: a leading large file with a DV is not skipped; one without is', () => {
    const big = file('big', 300);
    const bigDv = file('bigDv', 300, { index: 'i', deleted: 1 });
    const small = file('small', 1);
    const full = { full: true, targetFileSize: 256 * MB };
    expect(names(pickAppendFiles([big, bigDv, small], FIXED_DV, full).files)).toEqual(['bigDv', 'small']);
    // a single file with a DV is rewritten (its deleted rows dropped)
    expect(names(pickAppendFiles([big, bigDv], FIXED_DV, full).files)).toEqual(['bigDv']);
    // without DVs the large files decide: 1 small vs 1 large after the skip → nothing
    expect(pickAppendFiles([big, file('big2', 300), small], { bucket: '2' }, full).files).toEqual([]);
  });

  it('the normal window ignores DVs (Java picks by sequence and size only)', () => {
    const fs = [file('a', 1, { index: 'i', deleted: 1 }), file('b', 1), file('c', 1)];
    expect(pickAppendFiles(fs, FIXED_DV, T).files).toEqual([]);
  });
});
