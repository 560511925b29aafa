/** Java-written deletion vectors (iceberg-go/dv_blobs); expected positions from the fixtures' MANIFEST.md. */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FloeError } from '../../../util/errors.js';
import { decodeDeletionVector, readPuffinFooter } from '../../../connectors/iceberg/puffin.js';
import { fixtures } from './helpers.js';

const dir = path.join(fixtures, 'iceberg-go/dv_blobs');
const read = (f: string) => readFileSync(path.join(dir, f));

describe('deletion vectors', () => {
  it('decodes the standalone blobs', () => {
    expect(decodeDeletionVector(read('small-alternating-values-position-index.bin'), 'a')).toEqual([1, 3, 5, 7, 9]);
    expect(decodeDeletionVector(read('small-and-large-values-position-index.bin'), 'b')).toEqual([
      100, 101, 2147483747, 2147483748,
    ]);
    expect(decodeDeletionVector(read('empty-position-index.bin'), 'c')).toEqual([]);
    const all = decodeDeletionVector(read('all-container-types-position-index.bin'), 'd');
    expect(all).toHaveLength(132561);
    // ascending and spanning two high keys
    expect(all.every((v, i) => i === 0 || v > all[i - 1]!)).toBe(true);
    expect(new Set(all.map((v) => Math.floor(v / 2 ** 32))).size).toBe(2);
  });

  it('reads Puffin footers and the blobs they point at', () => {
    const single = read('single-blob-dv.puffin');
    const f1 = readPuffinFooter(single, 'single');
    expect(f1.blobs).toHaveLength(1);
    expect(f1.blobs[0]!.type).toBe('deletion-vector-v1');
    expect(f1.blobs[0]!.properties['referenced-data-file']).toBe('s3://warehouse/db/table/data/00000-0-abc.parquet');
    const b = f1.blobs[0]!;
    expect(decodeDeletionVector(single.subarray(b.offset, b.offset + b.length), 'single')).toEqual([1, 3, 5, 7, 9]);

    const multi = read('multi-blob-dv.puffin');
    const got = readPuffinFooter(multi, 'multi').blobs.map((x) => [
      x.properties['referenced-data-file']!.split('/').pop(),
      decodeDeletionVector(multi.subarray(x.offset, x.offset + x.length), 'multi'),
    ]);
    expect(got).toEqual([
      ['file-001.parquet', [0, 100, 200]],
      ['file-002.parquet', [50, 150]],
    ]);
  });

  it('rejects a blob whose CRC does not match', () => {
    const blob = Buffer.from(read('small-alternating-values-position-index.bin'));
    blob[blob.length - 1] ^= 0xff;
    expect(() => decodeDeletionVector(blob, 'bad.puffin')).toThrow(FloeError);
    expect(() => decodeDeletionVector(blob, 'bad.puffin')).toThrow(/bad\.puffin.*CRC/);
  });
});
