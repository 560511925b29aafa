/**
 * Issue 15.3: append-table compaction rules. Bucket-unaware tables (bucket = -1) follow Java 1.3's
 * AppendCompactCoordinator; fixed-bucket tables BucketedAppendCompactManager (pickAppend). Expected picks are
 * worked out by hand from those rules, not by running the code.
 */
import { describe, expect, it } from 'vitest';
import { pickAppend, pickUnawareAppend } from '../../../connectors/paimon/compact-append.js';
import type { PaimonFile } from '../../../connectors/paimon/table.js';

const MB = 1024 * 1024;
let seq = 0n;
function file(name: string, sizeMb: number): PaimonFile {
  const s = seq;
  seq += 10n;
  return {
    meta: {
      fileName: name,
      fileSize: BigInt(Math.round(sizeMb * MB)),
      rowCount: 10n,
      minKey: new Uint8Array(),
      maxKey: new Uint8Array(),
      keyStats: null,
      valueStats: null,
      minSequenceNumber: s,
      maxSequenceNumber: s + 9n,
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
}
const names = (fs: PaimonFile[]) => fs.map((f) => f.meta.fileName);
const T = 256 * MB;
const O = { minFileNum: 5, targetFileSize: T, openFileCost: 4 * MB };

describe('bucket-unaware append compaction (AppendCompactCoordinator)', () => {
  it('four small files: below compaction.min.file-num 5 and far from 2 × target → nothing', () => {
    const p = pickUnawareAppend([file('a', 1), file('b', 1), file('c', 1), file('d', 1)], O);
    expect(p.files).toEqual([]);
  });
  it('five small files reach compaction.min.file-num; files ≥ target/10*7 (179.2 MB) never take part', () => {
    const fs = [file('a', 1), file('big', 180), file('b', 2), file('c', 3), file('d', 4), file('e', 5)];
    expect(names(pickUnawareAppend(fs, O).files)).toEqual(['a', 'b', 'c', 'd', 'e']);
    // 179 MB is below the limit and joins
    expect(names(pickUnawareAppend([...fs.slice(0, 1), file('mid', 179)], { ...O, minFileNum: 2 }).files)).toEqual([
      'a',
      'mid',
    ]);
  });
  it('bins by ascending size close at 2 × target (open cost counted); a short last bin stays', () => {
    // sizes 170,170,170,2 MB: sorted 2,170,170,170; bin 2+170+170 = 342 + 3×4 = 354 < 512; +170 → 528 ≥ 512 → one task of 4
    const fs = [file('x', 170), file('y', 170), file('z', 170), file('s', 2)];
    expect(names(pickUnawareAppend(fs, O).files).sort()).toEqual(['s', 'x', 'y', 'z']);
    // one more small file after the closed bin: last bin of 1 < 5 → left alone
    const more = [...fs, file('t', 175)];
    const p = pickUnawareAppend(more, O);
    expect(names(p.files).sort()).toEqual(['s', 'x', 'y', 'z']);
  });
  it('the open-file cost alone can close a bin (many tiny files)', () => {
    const tiny = Array.from({ length: 130 }, (_, i) => file(`t${i}`, 0.001));
    // 4 MB each: 128 files reach 512 MB → one task of 128; the last 2 are below min file num
    expect(pickUnawareAppend(tiny, O).files).toHaveLength(128);
  });
});

describe('fixed-bucket append compaction (BucketedAppendCompactManager)', () => {
  it('a window of 5 consecutive files below the target is compacted', () => {
    const fs = [file('a', 1), file('b', 1), file('c', 1), file('d', 1), file('e', 1), file('f', 1)];
    expect(names(pickAppend(fs, { minFileNum: 5, targetFileSize: T, full: false }).files)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);
  });
  it('--full merges two small files (explicit request)', () => {
    expect(
      names(pickAppend([file('a', 1), file('b', 1)], { minFileNum: 5, targetFileSize: T, full: true }).files),
    ).toEqual(['a', 'b']);
  });
});
