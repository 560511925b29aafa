/**
 * Counting what a run asks of its object stores: requests by the kind a store bills (GET, PUT, LIST, DELETE,
 * HEAD) and the bytes read and written. FileIO wraps every store it resolves (S3, local, mounted) in
 * `countRequests`, so one counter per FileIO sees the whole run through one implementation.
 *
 * Requests are counted as S3 would be asked, whatever the store (a local store counts the equivalents):
 * - a GET, whole or ranged, is one `get`; `exists` and `head` are one `head`;
 * - `put` is one `put`; `putStream` is one `put` when the body fits one part, else the multipart upload:
 *   CreateMultipartUpload + one UploadPart per part + CompleteMultipartUpload, all billed as PUT, plus the
 *   HEAD S3ObjectStore sends first for a create-if-absent (`uploadRequests`);
 * - a listing is one `list` per page of up to 1000 keys (or `pageSize`), at least one;
 * - `delete` is one `delete`, and so is each `deleteMany` batch of up to 1000 keys.
 * These are logical requests: the SDK's retries of a failed attempt are not counted (a retried request is
 * billed again, so on a faulty store the bill is higher than the count).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import {
  DEFAULT_PART_SIZE,
  MIN_PART_SIZE,
  type ListOptions,
  type ObjectStore,
  type PutStreamOptions,
  toBytes,
} from './object-store.js';

export const REQUEST_KINDS = ['get', 'put', 'list', 'delete', 'head'] as const;
export type RequestKind = (typeof REQUEST_KINDS)[number];
export type RequestCounts = Record<RequestKind, number>;

/** What a run (or part of it) asked of storage. */
export interface StorageFigures {
  requests: RequestCounts;
  bytesRead: number;
  bytesWritten: number;
}

/** Keys per ListObjectsV2 page and per DeleteObjects batch, S3's maximum (and default). */
export const KEYS_PER_REQUEST = 1000;

export function zeroRequests(): RequestCounts {
  return { get: 0, put: 0, list: 0, delete: 0, head: 0 };
}

export function emptyFigures(): StorageFigures {
  return { requests: zeroRequests(), bytesRead: 0, bytesWritten: 0 };
}

/** a + b, kind by kind (a new object). */
export function addFigures(a: StorageFigures, b: StorageFigures): StorageFigures {
  const requests = zeroRequests();
  for (const k of REQUEST_KINDS) requests[k] = a.requests[k] + b.requests[k];
  return { requests, bytesRead: a.bytesRead + b.bytesRead, bytesWritten: a.bytesWritten + b.bytesWritten };
}

/** a − b (what happened between two snapshots of one counter). */
export function subtractFigures(a: StorageFigures, b: StorageFigures): StorageFigures {
  const requests = zeroRequests();
  for (const k of REQUEST_KINDS) requests[k] = a.requests[k] - b.requests[k];
  return { requests, bytesRead: a.bytesRead - b.bytesRead, bytesWritten: a.bytesWritten - b.bytesWritten };
}

/** The multipart part size S3ObjectStore uses for `options` (the one rule, shared with the estimate). */
export function partSizeOf(options?: Pick<PutStreamOptions, 'partSize'>): number {
  return Math.max(MIN_PART_SIZE, options?.partSize ?? DEFAULT_PART_SIZE);
}

/** The requests a streamed upload of `bytes` costs (see the module comment). */
export function uploadRequests(
  bytes: number,
  options?: Pick<PutStreamOptions, 'partSize' | 'ifNoneMatch'>,
): Pick<RequestCounts, 'put' | 'head'> {
  const parts = Math.ceil(bytes / partSizeOf(options));
  if (parts <= 1) return { put: 1, head: 0 };
  return { put: parts + 2, head: options?.ifNoneMatch === '*' ? 1 : 0 };
}

/** The LIST requests a listing of `keys` keys costs. */
export function listRequests(keys: number, pageSize?: number): number {
  const page = pageSize === undefined ? KEYS_PER_REQUEST : Math.max(2, Math.min(KEYS_PER_REQUEST, pageSize));
  return Math.max(1, Math.ceil(keys / page));
}

/** The DELETE requests a batch delete of `keys` keys costs. */
export function deleteRequests(keys: number): number {
  return Math.ceil(keys / KEYS_PER_REQUEST);
}

/** The figures when a run's planning ended, and the process CPU time (µs, user + system) then. */
export interface PhaseMark {
  figures: StorageFigures;
  cpuMicros: number;
}

export function processCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

export class RequestCounter {
  private readonly counts = emptyFigures();
  private armed: 'write' | 'delete' | undefined;
  /** A run inside another (a job inside a metered service call): its requests count for both. */
  parent: RequestCounter | undefined;
  /** Set by `mark()`, or by the first PUT/DELETE once `armAtFirstWrite()` was called. */
  planned: PhaseMark | undefined;
  /** Set by `markOpened()`: the table is found and its metadata read. */
  opened: PhaseMark | undefined;

  /** Marks the end of planning now (once; later calls keep the first mark). */
  mark(): void {
    this.planned ??= { figures: this.snapshot(), cpuMicros: processCpuMicros() };
  }

  markOpened(): void {
    this.opened ??= { figures: this.snapshot(), cpuMicros: processCpuMicros() };
  }

  /**
   * Marks the end of planning at the first write or delete from now on (what a plan leads to), or with
   * `'delete'` at the first delete only (a job that commits before it deletes, and plans its deletes after).
   */
  armAtFirstWrite(what: 'write' | 'delete' = 'write'): void {
    this.armed = what;
  }

  /** Adds `n` requests of `kind` (and bytes); for reads that bypass the stores (e.g. worker threads). */
  record(kind: RequestKind, n = 1, bytes: { read?: number; written?: number } = {}): void {
    if (this.armed && (kind === 'delete' || (kind === 'put' && this.armed === 'write'))) this.mark();
    this.counts.requests[kind] += n;
    this.counts.bytesRead += bytes.read ?? 0;
    this.counts.bytesWritten += bytes.written ?? 0;
    this.parent?.record(kind, n, bytes);
  }

  /** Adds figures counted elsewhere (a worker thread's FileIO): execution, so planning ended before. */
  add(f: StorageFigures): void {
    if (this.armed) this.mark();
    for (const k of REQUEST_KINDS) this.counts.requests[k] += f.requests[k];
    this.counts.bytesRead += f.bytesRead;
    this.counts.bytesWritten += f.bytesWritten;
    this.parent?.add(f);
  }

  /** A copy of the totals so far. */
  snapshot(): StorageFigures {
    return addFigures(this.counts, emptyFigures());
  }
}

const runCounter = new AsyncLocalStorage<RequestCounter>();

/**
 * Runs `fn` with `counter` counting every request of every FileIO used inside it (also FileIOs made inside:
 * a lease's, a catalog's), besides each FileIO's own counter.
 */
export function withRequestCounter<T>(counter: RequestCounter, fn: () => Promise<T>): Promise<T> {
  const outer = runCounter.getStore();
  if (outer && outer !== counter) counter.parent ??= outer;
  return runCounter.run(counter, fn);
}

/** The counter of the run this code is part of (withRequestCounter), if any. */
export function activeRequestCounter(): RequestCounter | undefined {
  return runCounter.getStore();
}

/** Records into the FileIO's own counter and the run's. */
class Tally {
  constructor(private readonly own: RequestCounter) {}
  record(kind: RequestKind, n = 1, bytes: { read?: number; written?: number } = {}): void {
    this.own.record(kind, n, bytes);
    const run = runCounter.getStore();
    if (run && run !== this.own) run.record(kind, n, bytes);
  }
}

const TARGET = Symbol('counted store');

/** The store a `countRequests` wrapper counts for (the store itself when it is not wrapped). */
export function uncountedStore(store: ObjectStore): ObjectStore {
  return ((store as unknown as Record<symbol, ObjectStore | undefined>)[TARGET] ?? store) as ObjectStore;
}

const COUNTED = new Set<PropertyKey>(['get', 'head', 'exists', 'put', 'putStream', 'list', 'delete', 'deleteMany']);

/**
 * `store`, counting into `counter`. A Proxy, so the store stays what it is to code that looks at it
 * (`instanceof LocalObjectStore`, an S3 store's bucket); the store's own calls to its methods (the HEAD
 * before a multipart create) run on the store itself and are not counted twice.
 */
export function countRequests<S extends ObjectStore>(store: S, own: RequestCounter): S {
  const counter = new Tally(own);
  const counted: Partial<ObjectStore> = {
    async get(key, options) {
      const bytes = await store.get(key, options);
      counter.record('get', 1, { read: bytes.byteLength });
      return bytes;
    },
    async head(key) {
      counter.record('head');
      return store.head(key);
    },
    async exists(key) {
      counter.record('head');
      return store.exists(key);
    },
    async put(key, body, options) {
      counter.record('put', 1, { written: toBytes(body).byteLength });
      return store.put(key, body, options);
    },
    async putStream(key, body, options) {
      let bytes = 0;
      const measured = (async function* () {
        for await (const chunk of body) {
          bytes += chunk.byteLength;
          yield chunk;
        }
      })();
      try {
        return await store.putStream(key, measured, options);
      } finally {
        const r = uploadRequests(bytes, options);
        counter.record('put', r.put, { written: bytes });
        counter.record('head', r.head);
      }
    },
    list(prefix: string, options?: ListOptions) {
      return (async function* () {
        let keys = 0;
        try {
          for await (const e of store.list(prefix, options)) {
            keys++;
            yield e;
          }
        } finally {
          counter.record('list', listRequests(keys, options?.pageSize));
        }
      })();
    },
    async delete(key) {
      counter.record('delete');
      return store.delete(key);
    },
    async deleteMany(keys) {
      counter.record('delete', deleteRequests(keys.length));
      return store.deleteMany(keys);
    },
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === TARGET) return target;
      if (COUNTED.has(prop)) return counted[prop as keyof ObjectStore];
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
