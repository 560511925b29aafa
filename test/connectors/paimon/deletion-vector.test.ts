import path from 'node:path';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DV_MAGIC_32, readDeletionVector, readPortableRoaring } from '../../../connectors/paimon/deletion-vector.js';
import { isFloeError } from '../../../util/errors.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const fixtures = path.resolve(repoRoot, '../shared/fixtures');

function le16(n: number) {
  return [n & 0xff, (n >> 8) & 0xff];
}
function le32(n: number) {
  return [n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff];
}
function be32(n: number) {
  return [(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff];
}

/** Portable roaring, no run containers: cookie 12346, count, (key, card-1) pairs, offsets, array containers. */
function arrayRoaring(values: number[]): number[] {
  const byKey = new Map<number, number[]>();
  for (const v of values) {
    const k = Math.floor(v / 65536);
    if (!byKey.has(k)) byKey.set(k, []);
    byKey.get(k)!.push(v % 65536);
  }
  const keys = [...byKey.keys()].sort((a, b) => a - b);
  const out = [...le32(12346), ...le32(keys.length)];
  for (const k of keys) out.push(...le16(k), ...le16(byKey.get(k)!.length - 1));
  let offset = out.length + 4 * keys.length;
  for (const k of keys) {
    out.push(...le32(offset));
    offset += 2 * byKey.get(k)!.length;
  }
  for (const k of keys) for (const v of byKey.get(k)!) out.push(...le16(v));
  return out;
}

describe('portable RoaringBitmap', () => {
  it('reads array containers across high keys', () => {
    const bytes = Uint8Array.from(arrayRoaring([1, 5, 65536 + 3, 3 * 65536]));
    expect(readPortableRoaring(bytes, 't').values).toEqual([1, 5, 65539, 196608]);
  });

  it('reads run containers (cookie 12347 with run flags, no offsets below 4 containers)', () => {
    // one container, key 0, runs [10..12] and [20..20]: cookie = 12347 | (size-1) << 16
    const bytes = Uint8Array.from([
      ...le32(12347),
      0x01,
      ...le16(0),
      ...le16(3),
      ...le16(2),
      ...le16(10),
      ...le16(2),
      ...le16(20),
      ...le16(0),
    ]);
    expect(readPortableRoaring(bytes, 't').values).toEqual([10, 11, 12, 20]);
  });

  it('reads bitmap containers (cardinality > 4096)', () => {
    const words = new Uint8Array(8192);
    for (let i = 0; i < 5000; i++) words[i >> 3]! |= 1 << (i & 7); // 0..4999
    const bytes = Uint8Array.from([...le32(12346), ...le32(1), ...le16(0), ...le16(4999), ...le32(16), ...words]);
    const { values } = readPortableRoaring(bytes, 't');
    expect(values.length).toBe(5000);
    expect(values[0]).toBe(0);
    expect(values[4999]).toBe(4999);
  });

  it('fails on truncation, naming the file', () => {
    const bytes = Uint8Array.from(arrayRoaring([1, 2, 3])).subarray(0, 10);
    let err: unknown;
    try {
      readPortableRoaring(bytes, 'index-x');
    } catch (e) {
      err = e;
    }
    expect(isFloeError(err, 'Corrupt')).toBe(true);
    expect((err as Error).message).toContain('index-x');
  });
});

describe('Paimon deletion-vector index files', () => {
  it('reads a 32-bit DV at the offset of its length field', () => {
    const bitmap = arrayRoaring([0, 4, 7]);
    const dv = [...be32(DV_MAGIC_32), ...bitmap];
    const file = Uint8Array.from([1, ...be32(dv.length), ...dv, 0, 0, 0, 0]);
    expect(readDeletionVector(file, 1, dv.length, 'idx')).toEqual([0, 4, 7]);
    expect(() => readDeletionVector(file, 1, dv.length + 1, 'idx')).toThrow(/manifest says/);
    expect(() => readDeletionVector(file, 2, undefined, 'idx')).toThrow(/idx/);
  });

  it('reads the 64-bit layout (same bytes as Iceberg position-index blobs)', () => {
    const dir = path.join(fixtures, 'iceberg-go/dv_blobs');
    const read = (n: string) => readDeletionVector(readFileSync(path.join(dir, n)), 0, undefined, n);
    // expected positions from iceberg-go's puffin/testdata/README.md (via MANIFEST.md)
    expect(read('small-alternating-values-position-index.bin')).toEqual([1, 3, 5, 7, 9]);
    expect(read('small-and-large-values-position-index.bin')).toEqual([100, 101, 2147483747, 2147483748]);
    expect(read('empty-position-index.bin')).toEqual([]);
    expect(read('all-container-types-position-index.bin').length).toBe(132561);
  });

  it('reads the Java-written pk_09 DV: row 4 (Tony) of its data file', () => {
    const f = path.join(fixtures, 'paimon-cpp/pk_09/index/index-ff7801ad-df90-49b2-9619-586eab9c68e3-1');
    expect(readDeletionVector(readFileSync(f), 1, 22, f)).toEqual([4]);
  });
});
