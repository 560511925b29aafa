/**
 * A table in an object store (s3:// served from an in-memory ObjectStore through the storage layer's
 * FileIO.mount): the metadata locator lists keys instead of directories, and DVs are read by byte range.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { MemoryObjectStore } from '../../../connectors/storage/memory-store.js';
import { openIcebergTable } from '../../../connectors/iceberg/table.js';
import { countLiveRows } from '../../../connectors/iceberg/scan.js';
import { fixtures } from './helpers.js';

async function upload(store: MemoryObjectStore, dir: string, prefix: string): Promise<void> {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) await upload(store, p, `${prefix}${name}/`);
    else await store.put(`${prefix}${name}`, new Uint8Array(readFileSync(p)));
  }
}

describe('tables in an object store', () => {
  it('reads a v3 table with deletion vectors and an empty version hint from s3://', async () => {
    const store = new MemoryObjectStore('memory://bucket');
    await upload(store, path.join(fixtures, 'impala/iceberg_v3_deletion_vectors'), 'wh/dv/');
    const fileIO = new FileIO();
    fileIO.mount('s3://bucket', store);
    const io = fileIO;
    // The metadata says hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors; map it into the bucket.
    const mapped = new FileIO({
      locationMap: new (await import('../../../connectors/storage/location.js')).LocationMap([
        { from: 'hdfs://localhost:20500/test-warehouse/iceberg_v3_deletion_vectors', to: 's3://bucket/wh/dv' },
      ]),
    });
    mapped.mount('s3://bucket', store);
    const t = await openIcebergTable('s3://bucket/wh/dv', { io: mapped });
    expect(t.via).toBe('listing');
    expect(path.basename(t.metadataLocation)).toBe('v3.metadata.json');
    expect(await countLiveRows(t)).toBe(3);
    // Without the mapping the hdfs:// manifest list has no storage: the error says so and suggests the fix.
    const bare = await openIcebergTable('s3://bucket/wh/dv', { io });
    const err = await countLiveRows(bare).catch((e: Error & { kind: string }) => e);
    expect(err).toMatchObject({ kind: 'Unsupported' });
    expect((err as Error).message).toMatch(/snap-3685752423136077685.*--location-map/s);
  });
});
