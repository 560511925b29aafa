/**
 * The one storage interface floe reads and writes tables through. Keys are store-relative object keys
 * ("warehouse/db/t/metadata/v3.metadata.json"); a store names itself by `describe(key)` so every error
 * can say exactly which file it concerns.
 *
 * Semantics follow S3 (the strictest common denominator), and every implementation enforces them:
 * - `put` with `ifNoneMatch: '*'` creates only if absent (else PreconditionFailed); with `ifMatch: etag`
 *   replaces only the version with that etag (missing → NotFound, as AWS answers 404 NoSuchKey;
 *   different etag → PreconditionFailed). A reader never sees a partially written object.
 * - `delete`/`deleteMany` of a missing key succeeds (idempotent).
 * - `list(prefix)` is a plain string-prefix listing in byte order, not a directory walk.
 */
import { FloeError } from '../../util/errors.js';

/** A byte range: `offset`/`length` (length omitted = to the end) or the last `suffixLength` bytes. */
export type ByteRange = { offset: number; length?: number } | { suffixLength: number };

export interface GetOptions {
  range?: ByteRange;
}

export interface ObjectMeta {
  key: string;
  size: number;
  lastModified: Date;
  /** Opaque version tag; pass it back as `ifMatch`. */
  etag: string;
}

export interface ListEntry {
  key: string;
  size: number;
  lastModified: Date;
}

export interface ListOptions {
  /** Keys per underlying request (S3 MaxKeys); small values exercise paging. */
  pageSize?: number;
  /**
   * Also list the store's own in-flight/leftover temporary files (the local store's `.<name>.floe-tmp-*`),
   * which listings hide by default; orphan removal needs them. Stores without temp files ignore it.
   */
  includeTemporary?: boolean;
}

export interface PutOptions {
  /** '*': create only if the key does not exist. */
  ifNoneMatch?: '*';
  /** Replace only if the current version has this etag. */
  ifMatch?: string;
  contentType?: string;
}

export interface PutStreamOptions {
  /** Multipart part size in bytes (S3 minimum 5 MiB for all parts but the last). */
  partSize?: number;
  contentType?: string;
  /** '*': publish only if the key does not exist (S3: on CompleteMultipartUpload / the single PUT). */
  ifNoneMatch?: '*';
}

export interface PutResult {
  etag: string;
}

export interface DeleteFailure {
  key: string;
  error: FloeError;
}

export interface DeleteManyResult {
  deleted: string[];
  failed: DeleteFailure[];
}

export type Body = Uint8Array | string;

export interface ObjectStore {
  /** The full location of `key` (s3://bucket/key, file:///path) for messages and logs. */
  describe(key: string): string;
  /** Fresh bytes the caller owns (never a store's own copy): a reader may free them early (releaseBytes). */
  get(key: string, options?: GetOptions): Promise<Uint8Array>;
  /** NotFound if absent. */
  head(key: string): Promise<ObjectMeta>;
  exists(key: string): Promise<boolean>;
  put(key: string, body: Body, options?: PutOptions): Promise<PutResult>;
  /** Streams a body of unknown length; large bodies go up as multipart uploads, never fully buffered. */
  putStream(key: string, body: AsyncIterable<Uint8Array>, options?: PutStreamOptions): Promise<PutResult>;
  list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry>;
  delete(key: string): Promise<void>;
  /** Per-key failures are reported in the result, not thrown. */
  deleteMany(keys: readonly string[]): Promise<DeleteManyResult>;
}

export const DEFAULT_PART_SIZE = 8 * 1024 * 1024;
export const MIN_PART_SIZE = 5 * 1024 * 1024;

export function toBytes(body: Body): Uint8Array {
  return typeof body === 'string' ? new TextEncoder().encode(body) : body;
}

/**
 * Resolves a range against an object of `size` bytes as [start, end) the way S3 does: a start at or past
 * the end is an error (416 InvalidRange), an end past the object is clipped.
 */
export function resolveRange(range: ByteRange | undefined, size: number, location: string): [number, number] {
  if (range === undefined) return [0, size];
  if ('suffixLength' in range) {
    if (!Number.isInteger(range.suffixLength) || range.suffixLength < 0) {
      throw invalidRange(location, `suffix length ${range.suffixLength}`);
    }
    return [Math.max(0, size - range.suffixLength), size];
  }
  const { offset, length } = range;
  if (!Number.isInteger(offset) || offset < 0 || (length !== undefined && (!Number.isInteger(length) || length < 0))) {
    throw invalidRange(location, `offset ${offset} length ${length}`);
  }
  if (length === 0) return [offset, offset];
  if (offset >= size) throw invalidRange(location, `offset ${offset} is past the end (size ${size})`);
  return [offset, length === undefined ? size : Math.min(size, offset + length)];
}

function invalidRange(location: string, detail: string): FloeError {
  return new FloeError('InvalidArgument', `invalid byte range for ${location}: ${detail}`, {
    context: { file: location },
  });
}

export function notFound(location: string, what = 'no such object'): FloeError {
  return new FloeError('NotFound', `${what}: ${location}`, { context: { file: location } });
}

export function preconditionFailed(location: string, detail: string): FloeError {
  return new FloeError('PreconditionFailed', `conditional write to ${location} refused: ${detail}`, {
    context: { file: location },
  });
}

export function checkPutOptions(options: PutOptions | undefined, location: string): void {
  if (options?.ifMatch !== undefined && options.ifNoneMatch !== undefined) {
    throw new FloeError('InvalidArgument', `put ${location}: ifMatch and ifNoneMatch cannot be combined`, {
      context: { file: location },
    });
  }
  if (options?.ifNoneMatch !== undefined && options.ifNoneMatch !== '*') {
    throw new FloeError('InvalidArgument', `put ${location}: ifNoneMatch only supports '*'`, {
      context: { file: location },
    });
  }
}

/** Collects an async iterable of chunks into one array (for small bodies and tests). */
export async function collect(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    parts.push(chunk.slice()); // the producer may reuse its buffer once we ask for the next chunk
    total += chunk.byteLength;
  }
  return concatBytes(parts, total);
}

export function concatBytes(
  parts: readonly Uint8Array[],
  total = parts.reduce((n, p) => n + p.byteLength, 0),
): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.byteLength;
  }
  return out;
}

/**
 * Re-chunks a stream into pieces of exactly `size` bytes (the last may be shorter). Multipart upload needs
 * equal-sized parts whatever chunk sizes the producer writes.
 */
export async function* rechunk(body: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  for await (let chunk of body) {
    while (pendingBytes + chunk.byteLength >= size) {
      const take = size - pendingBytes;
      // a copy even when this chunk alone fills the part: the part outlives our next request for a chunk
      pending.push(chunk.subarray(0, take));
      yield pending.length === 1 ? pending[0]!.slice() : concatBytes(pending, size);
      chunk = chunk.subarray(take);
      pending = [];
      pendingBytes = 0;
    }
    if (chunk.byteLength > 0) {
      // Copy: the producer may reuse its buffer once we ask for the next chunk.
      pending.push(chunk.slice());
      pendingBytes += chunk.byteLength;
    }
  }
  if (pendingBytes > 0) yield concatBytes(pending, pendingBytes);
}

/**
 * A push-style writer over `putStream`: write chunks as they are produced, then close (or abort). `write`
 * resolves once the store is done with the chunk (it asked for the next one, or the upload ended), so the
 * caller may reuse the chunk's buffer then; a store keeping bytes longer (a multipart part) copies them.
 */
export interface UploadWriter {
  write(chunk: Uint8Array): Promise<void>;
  close(): Promise<PutResult>;
  abort(reason?: unknown): Promise<void>;
}

export function openUploadWriter(store: ObjectStore, key: string, options?: PutStreamOptions): UploadWriter {
  // A one-slot channel: an item waits in the slot until the uploader takes it; a chunk's writer is released
  // when the uploader comes back for the next item (it is done with this one) or the upload settles.
  type Item = { chunk?: Uint8Array; done?: boolean; error?: unknown; release?: () => void };
  let slot: Item | undefined;
  let wakeConsumer: (() => void) | undefined;
  let wakeProducer: (() => void) | undefined;
  let inUse: (() => void) | undefined; // the release of the chunk the uploader holds
  const source: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      try {
        for (;;) {
          inUse?.();
          inUse = undefined;
          while (slot === undefined) await new Promise<void>((r) => (wakeConsumer = r));
          const item = slot;
          slot = undefined;
          wakeProducer?.();
          if (item.error !== undefined) throw item.error;
          if (item.done) return;
          inUse = item.release;
          yield item.chunk!;
        }
      } finally {
        inUse?.();
        inUse = undefined;
      }
    },
  };
  const upload = store.putStream(key, source, options);
  upload.catch(() => undefined); // surfaced by write/close; avoid an unhandled rejection meanwhile
  let failed: unknown;
  let settled = false;
  void upload
    .then(
      () => undefined,
      (e) => {
        failed = e;
      },
    )
    .finally(() => {
      settled = true;
      // a store that stopped reading is done with what it held, and will never take what waits in the slot
      inUse?.();
      inUse = undefined;
      slot?.release?.();
      wakeProducer?.();
    });
  const offer = async (item: Item): Promise<void> => {
    while (slot !== undefined && failed === undefined && !settled) await new Promise<void>((r) => (wakeProducer = r));
    if (failed !== undefined) throw failed;
    if (settled) throw new Error(`upload of ${store.describe(key)} ended before all its bytes were written`);
    slot = item;
    wakeConsumer?.();
  };
  return {
    write: async (chunk) => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      await offer({ chunk, release });
      await released;
      if (failed !== undefined) throw failed;
    },
    close: async () => {
      await offer({ done: true });
      return upload;
    },
    abort: async (reason) => {
      await offer({ error: reason ?? new Error(`upload of ${store.describe(key)} aborted`) }).catch(() => undefined);
      await upload.catch(() => undefined);
    },
  };
}
