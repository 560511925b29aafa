/**
 * The DV writer against Java-written index files (fixture pk_09): every DV read back and re-serialized
 * gives Java's bytes (size, magic, runOptimize'd portable roaring, CRC), and hand-built bitmaps of each
 * container kind round-trip through floe's reader.
 */
import path from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readDeletionVector, readPortableRoaring } from '../../../connectors/paimon/deletion-vector.js';
import {
  buildDvIndexFile,
  serializeDeletionVector,
  serializePortableRoaring,
} from '../../../connectors/paimon/dv-write.js';
import { openPaimonTable } from '../../../connectors/paimon/table.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const pk09 = path.resolve(repoRoot, '../shared/fixtures/paimon-cpp/pk_09');

describe('deletion-vector writer', () => {
  it('re-serializes every DV of the Java-written pk_09 index files byte for byte', async () => {
    expect(existsSync(pk09), `fixture missing: ${pk09} (see /work/shared/fixtures/MANIFEST.md)`).toBe(true);
    const table = await openPaimonTable(pk09);
    const dvEntries = table.indexEntries.filter((e) => e.indexType === 'DELETION_VECTORS');
    let checked = 0;
    for (const e of dvEntries) {
      const bytes = new Uint8Array(readFileSync(path.join(pk09, 'index', e.fileName)));
      for (const r of e.dvRanges ?? []) {
        const positions = readDeletionVector(bytes, r.offset, r.length, e.fileName);
        const mine = serializeDeletionVector(positions, r.dataFileName);
        expect(Buffer.from(mine)).toEqual(Buffer.from(bytes.subarray(r.offset, r.offset + 8 + r.length)));
        checked++;
      }
      // the whole file, DVs in the manifest's order
      const rebuilt = buildDvIndexFile(
        (e.dvRanges ?? []).map((r) => ({
          dataFile: r.dataFileName,
          positions: readDeletionVector(bytes, r.offset, r.length, e.fileName),
        })),
      );
      expect(Buffer.from(rebuilt.bytes)).toEqual(Buffer.from(bytes));
      expect(rebuilt.ranges.map((r) => [r.dataFileName, r.offset, r.length])).toEqual(
        (e.dvRanges ?? []).map((r) => [r.dataFileName, r.offset, r.length]),
      );
    }
    expect(checked).toBeGreaterThan(0);
  });

  it('round-trips array, bitmap and run containers across several high keys', () => {
    const cases: number[][] = [
      [],
      [0],
      [1, 5, 9, 65535, 65536, 70000],
      Array.from({ length: 5000 }, (_, i) => i * 3), // > 4096 values in key 0: bitmap
      Array.from({ length: 3000 }, (_, i) => 100 + i), // one long run
      [...Array.from({ length: 10 }, (_, k) => k * 65536 + 7), ...Array.from({ length: 50 }, (_, i) => 900000 + i)],
      Array.from({ length: 70000 }, (_, i) => i * 2), // bitmaps in two keys
    ];
    for (const c of cases) {
      const bytes = serializePortableRoaring(c);
      const back = readPortableRoaring(bytes, 'test');
      expect(back.values).toEqual(c);
      expect(back.bytesRead).toBe(bytes.length);
    }
  });

  it('refuses positions a 32-bit DV cannot hold', () => {
    expect(() => serializeDeletionVector([2 ** 31], 'f')).toThrow(/bitmap64/);
  });
});
