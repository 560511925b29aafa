/**
 * Location-addressed file access for maintenance commands, over the shared storage layer (FileIO):
 * read / head / recursive listing with modification times / create-if-absent / overwrite / delete.
 * It satisfies, structurally, the IcebergIO reader interface and the commit side's CommitIO, so one object
 * serves reading, committing and cleaning a table wherever it lives (local, S3, memory in tests).
 */
import { FloeError, isFloeError } from '../errors.js';
import { FileIO, type ObjectMeta, type ResolvedLocation } from '../../connectors/storage/index.js';

export interface ListedFile {
  /** Normalised full location (scheme://authority/path, file:///abs for local files). */
  location: string;
  size: number;
  lastModified: Date;
}

export class StoreIO {
  constructor(readonly fileIO: FileIO = new FileIO()) {}

  resolveLocation(location: string): ResolvedLocation {
    return this.fileIO.resolve(location);
  }

  /** The normalised, mapped form of a location (what listings report and what valid sets hold). */
  resolve(location: string): string {
    return this.fileIO.map(location);
  }

  async read(location: string): Promise<Uint8Array> {
    const r = this.fileIO.resolve(location);
    return r.store.get(r.key);
  }

  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    const r = this.fileIO.resolve(location);
    return r.store.get(r.key, { range: { offset, length } });
  }

  async exists(location: string): Promise<boolean> {
    const r = this.fileIO.resolve(location);
    return r.store.exists(r.key);
  }

  async head(location: string): Promise<ObjectMeta> {
    const r = this.fileIO.resolve(location);
    return r.store.head(r.key);
  }

  /** Names of the objects directly under `dirLocation` (sub-directories excluded). */
  async listNames(dirLocation: string): Promise<string[]> {
    const names: string[] = [];
    const base = this.fileIO.resolve(dirLocation).location;
    for await (const f of this.list(dirLocation)) {
      const rel = f.location.slice(base.length + 1);
      if (!rel.includes('/')) names.push(rel);
    }
    return names;
  }

  /** Every object at or below `rootLocation` (recursive), in key order. */
  async *list(rootLocation: string, pageSize?: number): AsyncIterable<ListedFile> {
    const r = this.fileIO.resolve(rootLocation);
    const base = r.location.endsWith('/') ? r.location.slice(0, -1) : r.location;
    const prefix = r.key === '' ? '' : r.key.endsWith('/') ? r.key : `${r.key}/`;
    try {
      for await (const e of r.store.list(prefix, pageSize ? { pageSize } : undefined)) {
        yield { location: `${base}/${e.key.slice(prefix.length)}`, size: e.size, lastModified: e.lastModified };
      }
    } catch (e) {
      if (isFloeError(e, 'NotFound')) return;
      throw e;
    }
  }

  async createNew(location: string, bytes: Uint8Array): Promise<void> {
    const r = this.fileIO.resolve(location);
    await r.store.put(r.key, bytes, { ifNoneMatch: '*' });
  }

  async overwrite(location: string, bytes: Uint8Array): Promise<void> {
    const r = this.fileIO.resolve(location);
    await r.store.put(r.key, bytes);
  }

  async remove(location: string): Promise<void> {
    const r = this.fileIO.resolve(location);
    await r.store.delete(r.key);
  }
}

export function requireFound<T>(value: T | undefined, what: string, file: string): T {
  if (value === undefined) throw new FloeError('NotFound', `${what}: ${file}`, { context: { file } });
  return value;
}
