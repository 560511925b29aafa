/**
 * Table file access for reads and commits on top of the shared storage layer: one object that the Iceberg
 * reader (IcebergIO), the committer (CommitIO) and filesystem-table publication (VersionedIO) all use, so a
 * location means the same object everywhere (after `--location-map`), on local disk and on S3 alike.
 */
import { FloeError } from '../../src/errors.js';
import { FileIO } from '../storage/file-io.js';
import type { IcebergIO } from './io.js';
import type { CommitIO } from './commit-rewrite.js';
import type { VersionedIO } from './commit-ops.js';

export class TableFileIO implements IcebergIO, CommitIO, VersionedIO {
  constructor(readonly files: FileIO) {}

  resolve(location: string): string {
    return this.files.map(location);
  }

  read(location: string): Promise<Uint8Array> {
    const r = this.files.resolve(location);
    return r.store.get(r.key);
  }

  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    const r = this.files.resolve(location);
    const bytes = await r.store.get(r.key, { range: { offset, length } });
    if (bytes.byteLength < length) {
      throw new FloeError(
        'Corrupt',
        `file ${location} is shorter than expected: wanted ${length} bytes at ${offset}, got ${bytes.byteLength}`,
        {
          context: { file: location },
        },
      );
    }
    return bytes;
  }

  exists(location: string): Promise<boolean> {
    const r = this.files.resolve(location);
    return r.store.exists(r.key);
  }

  async listNames(dirLocation: string): Promise<string[]> {
    const r = this.files.resolve(dirLocation);
    const prefix = r.key === '' ? '' : `${r.key.replace(/\/$/, '')}/`;
    const names: string[] = [];
    for await (const e of r.store.list(prefix)) {
      const rest = e.key.slice(prefix.length);
      if (rest !== '' && !rest.includes('/')) names.push(rest);
    }
    return names;
  }

  async createNew(location: string, bytes: Uint8Array): Promise<void> {
    const r = this.files.resolve(location);
    await r.store.put(r.key, bytes, { ifNoneMatch: '*' });
  }

  async overwrite(location: string, bytes: Uint8Array): Promise<void> {
    const r = this.files.resolve(location);
    await r.store.put(r.key, bytes);
  }

  async remove(location: string): Promise<void> {
    const r = this.files.resolve(location);
    await r.store.delete(r.key);
  }
}
