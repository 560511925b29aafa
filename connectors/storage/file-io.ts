/**
 * FileIO: the one way floe reaches a table's files. Iceberg, Paimon, maintenance and the executor all address
 * files by location (as table metadata spells them, or as given on the command line); FileIO turns a location
 * into where the bytes are — one location convention, `map()`: the `--location-map` rules (one re-mapper,
 * LocationMap) applied to the normalised URI — and into the ObjectStore and key that hold it.
 *
 * Capabilities, each over the ObjectStore: whole and ranged reads, existence and metadata, direct and
 * recursive listings, create-if-absent, overwrite and delete. Code that needs only some of them takes a
 * `Pick<FileIO, …>` (IcebergIO, PaimonIO, CommitIO), so test doubles stay small; everything else takes FileIO.
 *
 * Stores are cached: one local store, one S3 client per endpoint/credentials, one S3 store per bucket. The
 * S3 SDK itself is imported by the first s3:// request (s3-store.ts), so local-only runs never load it.
 */
import { FloeError, errorForFile, isFloeError } from '../../util/errors.js';
import { LocalObjectStore, type LocalStoreOptions } from './local-store.js';
import { LocationMap, normalizeLocation, parseLocation, relativeLocation } from './location.js';
import {
  openUploadWriter,
  type ListOptions,
  type ObjectMeta,
  type ObjectStore,
  type PutStreamOptions,
  type UploadWriter,
} from './object-store.js';
import type { RetryPolicy } from './retry.js';
import { RequestCounter, countRequests } from './request-counter.js';
import { type CommitFormat, requireConditionalCreate } from './conditional-writes.js';
import { type S3ClientHandle, type S3ConnectionConfig, S3ObjectStore, createS3Client } from './s3-store.js';

export interface StorageConfig {
  /** Connection used for every bucket unless `s3Buckets` overrides it. */
  s3?: S3ConnectionConfig;
  /** Per-bucket connection overrides (a bucket on another endpoint or account). */
  s3Buckets?: Record<string, S3ConnectionConfig>;
  locationMap?: LocationMap;
  local?: LocalStoreOptions;
  retry?: Partial<RetryPolicy>;
  /** Requests in flight per store. */
  concurrency?: number;
}

export interface ResolvedLocation {
  store: ObjectStore;
  /** Key inside `store` ('' for a bucket or filesystem root). */
  key: string;
  /** The normalised location after mapping, e.g. file:///data/t/metadata/v1.metadata.json. */
  location: string;
}

/** One object of a recursive listing. */
export interface ListedFile {
  /** Normalised full location where the object really is (scheme://authority/path, file:///abs). */
  location: string;
  size: number;
  lastModified: Date;
}

export interface ListNamesOptions {
  /** Also name the "directories" directly under (first key segments of deeper objects), as Paimon needs. */
  directories?: boolean;
}

export class FileIO {
  private localStore: LocalObjectStore | undefined;
  private readonly clients = new Map<string, S3ClientHandle>();
  private readonly s3Stores = new Map<string, S3ObjectStore>();
  private readonly mounts: { prefix: string; store: ObjectStore }[] = [];
  private readonly countedStores = new Map<ObjectStore, ObjectStore>();
  /** Every request this FileIO's stores were asked, by kind, and the bytes moved (request-counter.ts). */
  readonly requests = new RequestCounter();

  constructor(readonly config: StorageConfig = {}) {}

  /** Serves every location at or under `prefix` from `store` (e.g. an in-memory store in tests). */
  mount(prefix: string, store: ObjectStore): void {
    this.mounts.push({ prefix: normalizeLocation(prefix), store });
    this.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  // ---- locations -------------------------------------------------------------------------------------

  /** Where `location` lives now: the location map applied to its normal form. */
  map(location: string): string {
    return this.config.locationMap ? this.config.locationMap.apply(location) : normalizeLocation(location);
  }

  /** The real location for an error's context (mapped; the input itself when it cannot be mapped). */
  realLocation(location: string): string {
    try {
      return this.map(location);
    } catch {
      return location;
    }
  }

  /**
   * A location for messages: as given when no location map applies, else where floe really reads or
   * deletes it, with the metadata's spelling beside it (relocated tables).
   */
  describe(location: string): string {
    let real: string;
    try {
      real = this.map(location);
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

  /** The store and key holding `location` (after the location map). */
  resolve(location: string): ResolvedLocation {
    return this.resolveMapped(this.map(location), location);
  }

  /**
   * Like resolve, for a location that is already where the file lives (e.g. from a listing): the location
   * map is not applied a second time.
   */
  resolveMapped(mapped: string, original: string = mapped): ResolvedLocation {
    const r = this.resolveUncounted(mapped, original);
    let counted = this.countedStores.get(r.store);
    if (!counted) this.countedStores.set(r.store, (counted = countRequests(r.store, this.requests)));
    return { ...r, store: counted };
  }

  private resolveUncounted(mapped: string, original: string): ResolvedLocation {
    for (const m of this.mounts) {
      const rel = relativeLocation(m.prefix, mapped);
      if (rel !== undefined) return { store: m.store, key: rel, location: mapped };
    }
    const loc = parseLocation(mapped);
    if (loc.scheme === 'file') {
      this.localStore ??= new LocalObjectStore('/', { ...this.config.local, concurrency: this.config.concurrency });
      return { store: this.localStore, key: loc.path.slice(1), location: mapped };
    }
    if (loc.scheme === 's3') {
      return { store: this.s3Store(loc.authority), key: loc.path.replace(/^\//, ''), location: mapped };
    }
    const mappedNote = mapped === normalizeLocation(original) ? '' : ` (mapped from ${original})`;
    throw new FloeError(
      'Unsupported',
      `no storage for ${mapped}${mappedNote}: floe reads s3:// (s3a/s3n) and local files; ` +
        `if the table was copied elsewhere, add --location-map ${loc.scheme}://${loc.authority}${loc.path}=<where it is now>`,
      { context: { file: mapped } },
    );
  }

  // ---- reads -----------------------------------------------------------------------------------------

  /** Whole object, as bytes the caller owns; NotFound FloeError naming the file when absent. */
  async read(location: string): Promise<Uint8Array> {
    try {
      const r = this.resolve(location);
      return await r.store.get(r.key);
    } catch (e) {
      throw this.errorFor(location, 'cannot read', e);
    }
  }

  /** `length` bytes from `offset`; Corrupt when the file is shorter. */
  async readRange(location: string, offset: number, length: number): Promise<Uint8Array> {
    try {
      const r = this.resolve(location);
      const bytes = await r.store.get(r.key, { range: { offset, length } });
      if (bytes.byteLength < length) {
        throw new FloeError(
          'Corrupt',
          `file ${location} is shorter than expected: wanted ${length} bytes at ${offset}, got ${bytes.byteLength}`,
          { context: { file: location } },
        );
      }
      return bytes;
    } catch (e) {
      throw this.errorFor(location, 'cannot read', e);
    }
  }

  async exists(location: string): Promise<boolean> {
    const r = this.resolve(location);
    return r.store.exists(r.key);
  }

  /** NotFound if absent. */
  async head(location: string): Promise<ObjectMeta> {
    const r = this.resolve(location);
    return r.store.head(r.key);
  }

  /**
   * Names (not paths) of the objects directly under `dirLocation` — with `directories`, also of the
   * sub-directories; [] when the directory is absent.
   */
  async listNames(dirLocation: string, options: ListNamesOptions = {}): Promise<string[]> {
    const r = this.resolve(dirLocation);
    const prefix = r.key === '' ? '' : `${r.key.replace(/\/+$/, '')}/`;
    const names = new Set<string>();
    try {
      for await (const e of r.store.list(prefix)) {
        const rest = e.key.slice(prefix.length);
        const slash = rest.indexOf('/');
        if (slash < 0) {
          if (rest !== '') names.add(rest);
        } else if (options.directories && slash > 0) names.add(rest.slice(0, slash));
      }
    } catch (e) {
      if (isFloeError(e, 'NotFound')) return [];
      throw this.errorFor(dirLocation, 'cannot list', e);
    }
    return [...names];
  }

  /** Every object at or below `rootLocation` (recursive), in key order; nothing when it is absent. */
  async *list(
    rootLocation: string,
    pageSize?: number,
    listing: Pick<ListOptions, 'includeTemporary'> = {},
  ): AsyncIterable<ListedFile> {
    const r = this.resolve(rootLocation);
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

  // ---- writes ----------------------------------------------------------------------------------------

  /** Create-if-absent; PreconditionFailed FloeError when the object exists (see create-verified.ts). */
  async createNew(location: string, bytes: Uint8Array): Promise<void> {
    const r = this.resolve(location);
    await r.store.put(r.key, bytes, { ifNoneMatch: '*' });
  }

  /**
   * [stream] Create-if-absent of a body written piece by piece (a Parquet file as its row groups are
   * encoded): S3 multipart upload completed with If-None-Match, or a local temp file linked into place.
   * Nothing is visible at `location` until `close()`; `abort()` leaves nothing behind.
   */
  openNew(location: string, options: Omit<PutStreamOptions, 'ifNoneMatch'> = {}): UploadWriter {
    const r = this.resolve(location);
    return openUploadWriter(r.store, r.key, { ...options, ifNoneMatch: '*' });
  }

  async overwrite(location: string, bytes: Uint8Array): Promise<void> {
    const r = this.resolve(location);
    await r.store.put(r.key, bytes);
  }

  /**
   * Before a filesystem-table commit (the next version file created if absent): refuses, naming the store
   * and the catalog to use instead, when the table's S3 store does not honour conditional create
   * (conditional-writes.ts); `lease`: the same before taking the table lease, which also needs If-Match.
   * The first call per endpoint and bucket probes under `tableLocation`.
   */
  async requireConditionalCreate(tableLocation: string, purpose: CommitFormat | 'lease'): Promise<void> {
    await requireConditionalCreate(this.resolve(tableLocation), tableLocation, purpose);
  }

  /** Deleting a missing object succeeds. */
  async remove(location: string): Promise<void> {
    const r = this.resolve(location);
    await r.store.delete(r.key);
  }

  /** Closes cached S3 clients' sockets (for tests and short-lived CLI runs). */
  destroy(): void {
    for (const c of this.clients.values()) c.destroy();
    this.clients.clear();
    this.s3Stores.clear();
    this.countedStores.clear();
  }

  /**
   * An error naming the file: a missing file is "file not found: <location>"; otherwise the store's message,
   * which names where floe really read it — for a relocated file the metadata's spelling is added beside
   * it. The context names the metadata's spelling.
   */
  private errorFor(location: string, what: string, e: unknown): unknown {
    if (!(e instanceof FloeError)) return errorForFile('Transient', location, what, e);
    let msg: string;
    if (e.kind === 'NotFound') msg = `file not found: ${this.describe(location)}`;
    else if (this.realLocation(location) === location || e.message.includes(location)) msg = e.message;
    else msg = `${e.message} (metadata names ${location})`;
    return new FloeError(e.kind, msg, { context: { ...e.context, file: location }, retryable: e.retryable, cause: e });
  }

  private s3Store(bucket: string): S3ObjectStore {
    const connection = { ...this.config.s3, ...this.config.s3Buckets?.[bucket] };
    const clientKey = JSON.stringify([
      connection.endpoint ?? '',
      connection.region ?? '',
      connection.forcePathStyle ?? false,
      typeof connection.credentials === 'function'
        ? connection.credentials.id
        : (connection.credentials?.accessKeyId ?? ''),
      connection.checksums ?? '',
    ]);
    const storeKey = `${clientKey}|${bucket}|${connection.conditionalWrites ?? ''}|${connection.unsafeCommits ?? ''}`;
    let store = this.s3Stores.get(storeKey);
    if (!store) {
      let client = this.clients.get(clientKey);
      if (!client) {
        client = createS3Client(connection);
        this.clients.set(clientKey, client);
      }
      store = new S3ObjectStore({
        bucket,
        connection,
        client,
        retry: this.config.retry,
        concurrency: this.config.concurrency,
      });
      this.s3Stores.set(storeKey, store);
    }
    return store;
  }
}

/** A FileIO that reads with `mappings` applied (the `--location-map` rules of a command). */
export function fileIOWithMappings(
  mappings: readonly { from: string; to: string }[],
  config: Omit<StorageConfig, 'locationMap'> = {},
): FileIO {
  return new FileIO({ ...config, locationMap: new LocationMap(mappings) });
}

/** `value`, or a NotFound error naming `file` when it is undefined. */
export function requireFound<T>(value: T | undefined, what: string, file: string): T {
  if (value === undefined) throw new FloeError('NotFound', `${what}: ${file}`, { context: { file } });
  return value;
}

const byConfig = new WeakMap<StorageConfig, FileIO>();
const defaultConfig: StorageConfig = {};

/** `FileIO.resolve` with a FileIO cached per config object, so repeated calls share clients. */
export function storeFor(location: string, config: StorageConfig = defaultConfig): ResolvedLocation {
  let io = byConfig.get(config);
  if (!io) {
    io = new FileIO(config);
    byConfig.set(config, io);
  }
  return io.resolve(location);
}
