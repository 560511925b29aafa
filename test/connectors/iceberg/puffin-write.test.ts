/**
 * floe's deletion-vector writer (connectors/iceberg/puffin-write.ts), checked against Java-written blobs
 * (iceberg-go/dv_blobs, expected positions from the fixtures' MANIFEST.md) and against floe's reader.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeDeletionVector, readPuffinFooter } from '../../../connectors/iceberg/puffin.js';
import { encodeDeletionVector, writeDeletionVectorPuffin } from '../../../connectors/iceberg/puffin-write.js';
import { fixtures } from './helpers.js';

const dir = path.join(fixtures, 'iceberg-go/dv_blobs');
const read = (f: string) => readFileSync(path.join(dir, f));

describe('deletion vector writer', () => {
  it('writes the bytes Java writes for array containers, in one and in two high keys', () => {
    expect(encodeDeletionVector([1, 3, 5, 7, 9]).equals(read('small-alternating-values-position-index.bin'))).toBe(
      true,
    );
    expect(
      encodeDeletionVector([100, 101, 2147483747, 2147483748]).equals(
        read('small-and-large-values-position-index.bin'),
      ),
    ).toBe(true);
    expect(encodeDeletionVector([]).equals(read('empty-position-index.bin'))).toBe(true);
  });

  it('round-trips every container kind Java uses, across two 32-bit high keys', () => {
    const all = decodeDeletionVector(read('all-container-types-position-index.bin'), 'java');
    const ours = encodeDeletionVector(all);
    expect(decodeDeletionVector(ours, 'floe')).toEqual(all);
    const dense = Array.from({ length: 5000 }, (_, i) => 70_000 + i); // > 4096 in one container: a bitmap
    const sparse = [0, 65_535, 65_536, 2 ** 32 + 7, 2 ** 40];
    expect(decodeDeletionVector(encodeDeletionVector([...sparse, ...dense].reverse()), 'floe')).toEqual([
      ...sparse.slice(0, 3),
      ...dense,
      ...sparse.slice(3),
    ]);
    expect(() => encodeDeletionVector([-1])).toThrow(RangeError);
  });

  it('writes a Puffin file whose footer names each blob where it lies', () => {
    const { bytes, blobs } = writeDeletionVectorPuffin([
      { referencedDataFile: 's3://b/t/data/a.parquet', positions: [3, 1, 3] },
      { referencedDataFile: 's3://b/t/data/b.parquet', positions: [0] },
    ]);
    const footer = readPuffinFooter(bytes, 'floe.puffin');
    expect(
      footer.blobs.map((b) => [
        b.type,
        b.properties['referenced-data-file'],
        b.properties.cardinality,
        b.offset,
        b.length,
        b.snapshotId,
        b.sequenceNumber,
      ]),
    ).toEqual([
      [
        'deletion-vector-v1',
        's3://b/t/data/a.parquet',
        '2',
        blobs[0]!.contentOffset,
        blobs[0]!.contentSizeBytes,
        -1n,
        -1n,
      ],
      [
        'deletion-vector-v1',
        's3://b/t/data/b.parquet',
        '1',
        blobs[1]!.contentOffset,
        blobs[1]!.contentSizeBytes,
        -1n,
        -1n,
      ],
    ]);
    expect(
      blobs.map((b) =>
        decodeDeletionVector(bytes.subarray(b.contentOffset, b.contentOffset + b.contentSizeBytes), 'floe'),
      ),
    ).toEqual([[1, 3], [0]]);
  });
});
