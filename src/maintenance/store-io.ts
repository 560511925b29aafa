/**
 * Location-addressed file access for maintenance commands, over the shared storage layer (FileIO):
 * read / head / recursive listing with modification times / create-if-absent / overwrite / delete.
 * It satisfies, structurally, the IcebergIO reader interface and the commit side's CommitIO, so one object
 * serves reading, committing and cleaning a table wherever it lives (local, S3, memory in tests).
 */
import { FloeError, isFloeError } from '../errors.js';
import { FileIO, normalizeLocation, type ObjectMeta, type ResolvedLocation } from '../../connectors/storage/index.js';

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

  /** Store and key of a location that is already real (from a listing): no second location mapping. */
  resolveListed(location: string): ResolvedLocation {
    return this.fileIO.resolveMapped(location);
  }

  /** The normalised, mapped form of a location (what listings report and what valid sets hold). */
  resolve(location: string): string {
    return this.fileIO.map(location);
  }

  /**
   * A location for messages: as given when no location map applies, else where floe really reads or
   * deletes it, with the metadata's spelling beside it (relocated tables).
   */
  describe(location: string): string {
    let real: string;
    try {
      real = this.fileIO.map(location);
    } catch {
      return location;
    }
    let plain: string | undefined;
    try {
      plain = normalizeLocation(location);
    } catch {
      plain = undefined;
    }
    return real === plain ? location : `${real} (metadata names ${location})`;
  }

  /** The real location for an error's context (mapped; the input itself when it cannot be mapped). */
  realLocation(location: string): string {
    try {
      return this.fileIO.map(location);
    } catch {
      return location;
    }
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
  async *list(
    rootLocation: string,
    pageSize?: number,
    listing: { includeTemporary?: boolean } = {},
  ): AsyncIterable<ListedFile> {
    const r = this.fileIO.resolve(rootLocation);
    const base = r.location.endsWith('/') ? r.location.slice(0, -1) : r.location;
    const prefix = r.key === '' ? '' : r.key.endsWith('/') ? r.key : `${r.key}/`;
    const options = {
      ...(pageSize ? { pageSize } : {}),
      ...(listing.includeTemporary ? { includeTemporary: true } : {}),
    };
    try {
      for await (const e of r.store.list(prefix, options)) {
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
