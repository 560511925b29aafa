/**
 * FileIO: turns a full location (as found in table metadata, or given on the command line) into the
 * ObjectStore that holds it and the key inside that store, after applying `--location-map` rules.
 * Stores are cached: one local store, one S3 client per endpoint/credentials, one S3 store per bucket.
 */
import { FloeError } from '../../src/errors.js';
import { LocalObjectStore, type LocalStoreOptions } from './local-store.js';
import { LocationMap, normalizeLocation, parseLocation, relativeLocation } from './location.js';
import type { ObjectStore } from './object-store.js';
import type { RetryPolicy } from './retry.js';
import { type S3ConnectionConfig, S3ObjectStore, type S3Sender, createS3Client } from './s3-store.js';

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

export class FileIO {
  private localStore: LocalObjectStore | undefined;
  private readonly clients = new Map<string, S3Sender>();
  private readonly s3Stores = new Map<string, S3ObjectStore>();
  private readonly mounts: { prefix: string; store: ObjectStore }[] = [];

  constructor(readonly config: StorageConfig = {}) {}

  /** Serves every location at or under `prefix` from `store` (e.g. an in-memory store in tests). */
  mount(prefix: string, store: ObjectStore): void {
    this.mounts.push({ prefix: normalizeLocation(prefix), store });
    this.mounts.sort((a, b) => b.prefix.length - a.prefix.length);
  }

  /** Where `location` lives now: the location map applied to its normal form. */
  map(location: string): string {
    return this.config.locationMap ? this.config.locationMap.apply(location) : normalizeLocation(location);
  }

  resolve(location: string): ResolvedLocation {
    return this.resolveMapped(this.map(location), location);
  }

  /**
   * Like resolve, for a location that is already where the file lives (e.g. from a listing): the location
   * map is not applied a second time.
   */
  resolveMapped(mapped: string, original: string = mapped): ResolvedLocation {
    const location = original;
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
    const mappedNote = mapped === normalizeLocation(location) ? '' : ` (mapped from ${location})`;
    throw new FloeError(
      'Unsupported',
      `no storage for ${mapped}${mappedNote}: floe reads s3:// (s3a/s3n) and local files; ` +
        `if the table was copied elsewhere, add --location-map ${loc.scheme}://${loc.authority}${loc.path}=<where it is now>`,
      { context: { file: mapped } },
    );
  }

  private s3Store(bucket: string): S3ObjectStore {
    const connection = { ...this.config.s3, ...this.config.s3Buckets?.[bucket] };
    const clientKey = JSON.stringify([
      connection.endpoint ?? '',
      connection.region ?? '',
      connection.forcePathStyle ?? false,
      connection.credentials?.accessKeyId ?? '',
      connection.checksums ?? '',
    ]);
    const storeKey = `${clientKey}|${bucket}`;
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

  /** Closes cached S3 clients' sockets (for tests and short-lived CLI runs). */
  destroy(): void {
    for (const c of this.clients.values()) (c as { destroy?: () => void }).destroy?.();
    this.clients.clear();
    this.s3Stores.clear();
  }
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
