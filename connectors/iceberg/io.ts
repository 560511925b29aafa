/**
 * The file access the Iceberg reader needs, kept behind a tiny interface so the shared storage layer
 * (connectors/storage) can be plugged in without touching the readers.
 *
 * Locations are always passed as the table metadata spells them; a LocationRemap turns them into where
 * the bytes really are (tables copied out of HDFS/S3, relative paths in DuckDB's test tables …).
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { FloeError } from '../../src/errors.js';
import { FileIO as StorageFileIO, type StorageConfig } from '../storage/file-io.js';
import { LocationMap } from '../storage/location.js';

export interface IcebergIO {
  /** Whole object. NotFound FloeError when absent. */
  read(location: string): Promise<Uint8Array>;
  /** `length` bytes from `offset`. */
  readRange(location: string, offset: number, length: number): Promise<Uint8Array>;
  exists(location: string): Promise<boolean>;
  /** Names (not paths) of the objects directly under `dirLocation`; [] when the directory is absent. */
  listNames(dirLocation: string): Promise<string[]>;
  /** The physical location a table location maps to (for messages and path matching). */
  resolve(location: string): string;
}

export interface RemapRule {
  from: string;
  to: string;
}

/** Parses `FROM=TO` (the CLI's --location-map). The split is at the last '=' so URLs with '=' keep working. */
export function parseRemapRule(spec: string): RemapRule {
  const i = spec.lastIndexOf('=');
  if (i <= 0 || i === spec.length - 1) {
    throw new FloeError('InvalidArgument', `--location-map expects FROM=TO, got "${spec}"`);
  }
  return { from: spec.slice(0, i), to: spec.slice(i + 1) };
}

function trimSlash(s: string): string {
  return s.length > 1 && s.endsWith('/') ? s.slice(0, -1) : s;
}

/**
 * Longest-prefix location rewriting. A rule matches only at a path-segment boundary, so `/a/t` does not
 * rewrite `/a/t2/x`.
 */
export class LocationRemap {
  private readonly rules: RemapRule[];
  constructor(rules: readonly RemapRule[] = []) {
    this.rules = rules
      .map((r) => ({ from: trimSlash(r.from), to: trimSlash(r.to) }))
      .sort((a, b) => b.from.length - a.from.length);
  }
  withRules(more: readonly RemapRule[]): LocationRemap {
    return new LocationRemap([...this.rules, ...more]);
  }
  get size(): number {
    return this.rules.length;
  }
  apply(location: string): string {
    for (const r of this.rules) {
      if (location === r.from) return r.to;
      if (location.startsWith(r.from) && location[r.from.length] === '/') return r.to + location.slice(r.from.length);
    }
    return location;
  }
}

/** `file:///x` and `file:/x` → `/x`; other schemes are returned as-is. */
export function localPathOf(location: string): string | undefined {
  if (location.startsWith('file://')) return decodeURIComponent(location.slice('file://'.length));
  if (location.startsWith('file:')) return decodeURIComponent(location.slice('file:'.length));
  if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(location)) return undefined;
  return location;
}

/** Reads local files; any other scheme is refused until the shared object store is wired in. */
export class LocalIcebergIO implements IcebergIO {
  constructor(readonly remap: LocationRemap = new LocationRemap()) {}

  resolve(location: string): string {
    return this.remap.apply(location);
  }

  private local(location: string): string {
    const mapped = this.resolve(location);
    const p = localPathOf(mapped);
    if (p === undefined) {
      throw new FloeError(
        'Unsupported',
        `cannot read ${location}${mapped !== location ? ` (mapped to ${mapped})` : ''}: only local paths are readable here; ` +
          'use --location-map FROM=TO to point it at a local copy',
        { context: { file: location } },
      );
    }
    return path.resolve(p);
  }

  async read(location: string): Promise<Uint8Array> {
    const p = this.local(location);
    try {
      return new Uint8Array(await fs.readFile(p));
    } catch (e) {
      throw ioError(location, p, e);
    }
  }

  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    const p = this.local(location);
    let fh: fs.FileHandle | undefined;
    try {
      fh = await fs.open(p, 'r');
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      if (bytesRead < length) {
        throw new FloeError(
          'Corrupt',
          `file ${location} is shorter than expected: wanted ${length} bytes at ${offset}, got ${bytesRead}`,
          {
            context: { file: location },
          },
        );
      }
      return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (e) {
      if (e instanceof FloeError) throw e;
      throw ioError(location, p, e);
    } finally {
      await fh?.close();
    }
  }

  async exists(location: string): Promise<boolean> {
    try {
      const st = await fs.stat(this.local(location));
      return st.isFile();
    } catch (e) {
      if (e instanceof FloeError) throw e;
      return false;
    }
  }

  async listNames(dirLocation: string): Promise<string[]> {
    try {
      const entries = await fs.readdir(this.local(dirLocation), { withFileTypes: true });
      return entries.filter((d) => d.isFile()).map((d) => d.name);
    } catch (e) {
      if (e instanceof FloeError) throw e;
      return [];
    }
  }
}

function ioError(location: string, physical: string, e: unknown): FloeError {
  const code = (e as NodeJS.ErrnoException).code;
  const where = physical !== location ? `${location} (read as ${physical})` : location;
  if (code === 'ENOENT')
    return new FloeError('NotFound', `file not found: ${where}`, { context: { file: location }, cause: e });
  if (code === 'EACCES' || code === 'EPERM') {
    return new FloeError('AccessDenied', `cannot read ${where}: permission denied`, {
      context: { file: location },
      cause: e,
    });
  }
  return new FloeError('Transient', `cannot read ${where}: ${(e as Error).message}`, {
    context: { file: location },
    cause: e,
  });
}

/** Joins a child name onto a location without touching the scheme part. */
export function joinLocation(base: string, child: string): string {
  return `${trimSlash(base)}/${child}`;
}

/** The parent "directory" of a location. */
export function parentLocation(location: string): string {
  const i = trimSlash(location).lastIndexOf('/');
  return i <= 0 ? location : location.slice(0, i);
}

/**
 * IcebergIO over the shared storage layer (connectors/storage): local files and s3:// (s3a/s3n) through
 * ObjectStores, with `--location-map` rules applied by its LocationMap.
 */
export class StorageIcebergIO implements IcebergIO {
  constructor(readonly fileIO: StorageFileIO) {}

  static withRules(rules: readonly RemapRule[], config: Omit<StorageConfig, 'locationMap'> = {}): StorageIcebergIO {
    return new StorageIcebergIO(
      new StorageFileIO({ ...config, locationMap: new LocationMap(rules.map((r) => ({ from: r.from, to: r.to }))) }),
    );
  }

  resolve(location: string): string {
    return this.fileIO.map(location);
  }

  private wrap(location: string, e: unknown): unknown {
    if (e instanceof FloeError) {
      const mapped = this.resolve(location);
      const msg =
        mapped === location || e.message.includes(location)
          ? e.message
          : `${e.message} (metadata names it ${location})`;
      return new FloeError(e.kind, msg, {
        context: { ...e.context, file: location },
        retryable: e.retryable,
        cause: e,
      });
    }
    return e;
  }

  async read(location: string): Promise<Uint8Array> {
    try {
      const r = this.fileIO.resolve(location);
      return await r.store.get(r.key);
    } catch (e) {
      throw this.wrap(location, e);
    }
  }

  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    try {
      const r = this.fileIO.resolve(location);
      const bytes = await r.store.get(r.key, { range: { offset, length } });
      if (bytes.length < length) {
        throw new FloeError(
          'Corrupt',
          `file ${location} is shorter than expected: wanted ${length} bytes at ${offset}, got ${bytes.length}`,
          {
            context: { file: location },
          },
        );
      }
      return bytes;
    } catch (e) {
      throw this.wrap(location, e);
    }
  }

  async exists(location: string): Promise<boolean> {
    const r = this.fileIO.resolve(location);
    return r.store.exists(r.key);
  }

  async listNames(dirLocation: string): Promise<string[]> {
    const r = this.fileIO.resolve(dirLocation);
    const prefix = r.key === '' ? '' : `${r.key.replace(/\/+$/, '')}/`;
    const out: string[] = [];
    try {
      for await (const e of r.store.list(prefix)) {
        const rest = e.key.slice(prefix.length);
        if (rest && !rest.includes('/')) out.push(rest);
      }
    } catch (e) {
      if (e instanceof FloeError && e.kind === 'NotFound') return [];
      throw this.wrap(dirLocation, e);
    }
    return out;
  }
}
