/**
 * Paimon 1.4 index manifests carry `_GLOBAL_INDEX` (global index files of data-evolution tables). floe writes
 * the schema Java 1.4 writes, and an entry's global index read from an existing manifest is written back
 * unchanged when floe rewrites the index manifest (compaction keeps the index entries it does not touch).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readAvroContainer } from '../../../connectors/formats/avro.js';
import { readIndexManifest } from '../../../connectors/paimon/manifest.js';
import { ManifestNamer } from '../../../connectors/paimon/write-manifest.js';
import {
  INDEX_MANIFEST_ENTRY_SCHEMA,
  IndexManifestNamer,
  writeIndexManifest,
} from '../../../connectors/paimon/write-index-manifest.js';
import { FileIO } from '../../../connectors/storage/file-io.js';

const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-index-manifest-'));
const storage = new FileIO({});
afterAll(() => {
  storage.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('Paimon index manifest _GLOBAL_INDEX (1.4)', () => {
  it('is in the schema and round-trips through read and rewrite; absent stays absent', async () => {
    expect(JSON.parse(INDEX_MANIFEST_ENTRY_SCHEMA).fields.map((f: { name: string }) => f.name)).toContain(
      '_GLOBAL_INDEX',
    );
    const ctx = {
      table: dir,
      storage,
      codec: 'zstandard' as const,
      partitionTypes: [],
      schemaId: 0,
      names: new ManifestNamer(),
    };
    const names = new IndexManifestNamer();
    const base = { kind: 0, partition: new Uint8Array(0), bucket: 0, fileSize: 100n, rowCount: 10n };
    const first = await writeIndexManifest(
      ctx,
      [
        {
          ...base,
          indexType: 'BTREE',
          fileName: 'global-index-1',
          globalIndex: {
            _ROW_RANGE_START: 0n,
            _ROW_RANGE_END: 999n,
            _INDEX_FIELD_ID: 3,
            _EXTRA_FIELD_IDS: [4, 5],
            _INDEX_META: null,
          },
        },
        {
          ...base,
          indexType: 'DELETION_VECTORS',
          fileName: 'index-dv-1',
          dvRanges: [{ dataFileName: 'd.parquet', offset: 1, length: 20 }],
        },
      ],
      names.next(),
    );
    const read = await readIndexManifest(storage, dir, first);
    expect(read[0]!.globalIndex).toBeDefined();
    expect(read[1]!.globalIndex).toBeUndefined();
    // rewrite what was read, as compaction does with the entries it keeps
    const second = await writeIndexManifest(ctx, read, names.next());
    const again = await readIndexManifest(storage, dir, second);
    expect(again.map((e) => e.globalIndex)).toEqual(read.map((e) => e.globalIndex));
    const raw = readAvroContainer(await storage.read(path.join(dir, 'manifest', second)), 'index manifest');
    expect(raw.schemaText).toBe(INDEX_MANIFEST_ENTRY_SCHEMA);
    const g = (raw.records[0] as { _GLOBAL_INDEX: Record<string, unknown> })._GLOBAL_INDEX;
    expect(BigInt(g._ROW_RANGE_END as bigint | number)).toBe(999n);
    expect(g._INDEX_FIELD_ID).toBe(3);
    expect(g._EXTRA_FIELD_IDS).toEqual([4, 5]);
  });
});
