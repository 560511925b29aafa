/**
 * In-memory ObjectStore for unit tests. It enforces S3's conditional-write rules exactly (If-None-Match '*'
 * on an existing key → 412; If-Match on a missing key → 404 NoSuchKey; If-Match with another etag → 412),
 * so code tested against it behaves the same on S3. Lists really page (`pageSize`), like ListObjectsV2.
 */
import { createHash } from 'node:crypto';
import {
  type Body,
  type DeleteManyResult,
  type GetOptions,
  type ListEntry,
  type ListOptions,
  type ObjectMeta,
  type ObjectStore,
  type PutOptions,
  type PutResult,
  type PutStreamOptions,
  checkPutOptions,
  collect,
  notFound,
  preconditionFailed,
  resolveRange,
  toBytes,
} from './object-store.js';

interface StoredObject {
  data: Uint8Array;
  lastModified: Date;
  etag: string;
}

export class MemoryObjectStore implements ObjectStore {
  private readonly objects = new Map<string, StoredObject>();
  /** ListObjectsV2-style requests served, so tests can see that paging happened. */
  listRequests = 0;

  constructor(private readonly name = 'memory://test') {}

  describe(key: string): string {
    return `${this.name}/${key}`;
  }

  async get(key: string, options?: GetOptions): Promise<Uint8Array> {
    const obj = this.objects.get(key);
    if (!obj) throw notFound(this.describe(key));
    const [start, end] = resolveRange(options?.range, obj.data.byteLength, this.describe(key));
    return obj.data.slice(start, end);
  }

  async head(key: string): Promise<ObjectMeta> {
    const obj = this.objects.get(key);
    if (!obj) throw notFound(this.describe(key));
    return { key, size: obj.data.byteLength, lastModified: obj.lastModified, etag: obj.etag };
  }

  async exists(key: string): Promise<boolean> {
    return this.objects.has(key);
  }

  async put(key: string, body: Body, options?: PutOptions): Promise<PutResult> {
    const location = this.describe(key);
    checkPutOptions(options, location);
    const data = toBytes(body).slice();
    // No await between the check and the write: the event loop makes this atomic.
    const current = this.objects.get(key);
    if (options?.ifNoneMatch === '*' && current) throw preconditionFailed(location, 'object already exists');
    if (options?.ifMatch !== undefined) {
      if (!current) throw notFound(location, 'conditional write (If-Match) to a missing object');
      if (current.etag !== options.ifMatch) {
        throw preconditionFailed(location, `etag is ${current.etag}, expected ${options.ifMatch}`);
      }
    }
    const etag = `"${createHash('md5').update(data).digest('hex')}"`;
    this.objects.set(key, { data, lastModified: new Date(), etag });
    return { etag };
  }

  async putStream(key: string, body: AsyncIterable<Uint8Array>, options?: PutStreamOptions): Promise<PutResult> {
    // Collect fully before publishing: a failed stream must leave nothing behind.
    return this.put(key, await collect(body), options?.ifNoneMatch ? { ifNoneMatch: options.ifNoneMatch } : undefined);
  }

  async *list(prefix: string, options?: ListOptions): AsyncIterable<ListEntry> {
    const pageSize = Math.max(1, options?.pageSize ?? 1000);
    let startAfter: string | undefined;
    for (;;) {
      this.listRequests++;
      const page = [...this.objects.keys()]
        .filter((k) => k.startsWith(prefix) && (startAfter === undefined || compareKeys(k, startAfter) > 0))
        .sort(compareKeys)
        .slice(0, pageSize);
      for (const key of page) {
        const obj = this.objects.get(key);
        if (obj) yield { key, size: obj.data.byteLength, lastModified: obj.lastModified };
      }
      if (page.length < pageSize) return;
      startAfter = page[page.length - 1];
    }
  }

  async delete(key: string): Promise<void> {
    this.objects.delete(key);
  }

  async deleteMany(keys: readonly string[]): Promise<DeleteManyResult> {
    for (const key of keys) this.objects.delete(key);
    return { deleted: [...keys], failed: [] };
  }
}

/** S3 lists keys in UTF-8 byte order; JS string comparison is UTF-16 order, which differs past the BMP. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}
