/**
 * Orphan classification at scale: a synthetic table location with 1,000,000 objects (`--objects N`) in an
 * in-memory store — 90% referenced by the table, 10% not, half of those younger than the safety window —
 * listed through FileIO and classified against a ValidIndex, as `remove-orphans` does. Reports the time
 * to build the valid set and to list + classify, and peak RSS.
 */
import { FileIO, type ListEntry, type ObjectStore } from '../connectors/storage/index.js';
import { FloeError } from '../util/errors.js';
import { ValidIndex, classifyListing, newStats } from '../connectors/storage/orphan-scan.js';
import { forceGc, RssSampler } from './measure.js';
import { numberFlag, type Benchmark } from './types.js';

/** Listing-only store over a pre-sorted key array (MemoryObjectStore re-sorts per page; fine for tests, not for 10^6 keys). */
class SortedListingStore implements ObjectStore {
  constructor(
    private readonly keys: string[],
    private readonly mtime: (i: number) => Date,
  ) {}
  describe(key: string): string {
    return `memory://bench/${key}`;
  }
  async *list(prefix: string, options?: { pageSize?: number }): AsyncIterable<ListEntry> {
    const page = options?.pageSize ?? 1000;
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.keys[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.keys.length && this.keys[i]!.startsWith(prefix); i++) {
      if ((i - lo) % page === 0) await Promise.resolve(); // a page boundary, as a real listing would yield
      yield { key: this.keys[i]!, size: 1024, lastModified: this.mtime(i) };
    }
  }
  private unsupported(): never {
    throw new FloeError('Unsupported', 'bench store only lists');
  }
  get = async () => this.unsupported();
  head = async () => this.unsupported();
  exists = async () => false;
  put = async () => this.unsupported();
  putStream = async () => this.unsupported();
  delete = async () => this.unsupported();
  deleteMany = async () => this.unsupported();
}

const bench: Benchmark = {
  name: 'orphans',
  description: 'remove-orphans listing + classification of a synthetic table location in a memory store',
  async run(ctx) {
    const n = Math.floor(numberFlag(ctx.flags, 'objects', 1_000_000));
    const now = Date.UTC(2030, 0, 10);
    const table = 's3://bench/wh/db/t';
    ctx.log(`orphans: building ${n} keys`);
    const keys: string[] = [];
    for (let i = 0; i < n; i++) {
      const part = String(i % 1000).padStart(4, '0');
      keys.push(
        i % 50 === 0
          ? `wh/db/t/metadata/${i}-m0.avro`
          : `wh/db/t/data/day=${part}/${i.toString(36).padStart(6, '0')}-00000-writer.parquet`,
      );
    }
    keys.sort();
    const isOrphan = (i: number) => i % 10 === 7;
    const old = new Date(now - 10 * 86_400_000);
    const young = new Date(now - 3_600_000);
    const store = new SortedListingStore(keys, (i) => (isOrphan(i) && i % 20 === 17 ? young : old));
    const fileIO = new FileIO();
    fileIO.mount('s3://bench', store);
    const io = fileIO;
    const sampler = new RssSampler();
    try {
      forceGc();
      const rssStart = process.memoryUsage.rss();
      await sampler.reset();
      const t0 = performance.now();
      const index = new ValidIndex((l) => io.map(l));
      for (let i = 0; i < keys.length; i++) if (!isOrphan(i)) index.add(`s3a://bench/${keys[i]}`); // metadata says s3a
      const t1 = performance.now();
      const stats = newStats();
      let orphanCount = 0;
      await classifyListing(
        table,
        io.list(table, 1000),
        index,
        { olderThanMs: now - 3 * 86_400_000, prefixMismatch: 'error' },
        () => orphanCount++,
        stats,
      );
      const t2 = performance.now();
      const peak = Math.max(await sampler.read(), process.memoryUsage.rss());
      const expectedOrphans = keys.filter((_, i) => isOrphan(i) && i % 20 !== 17).length;
      if (orphanCount !== expectedOrphans)
        throw new Error(`classified ${orphanCount} orphans, expected ${expectedOrphans}`);
      const mb = (b: number) => Math.round(b / 1048576);
      return {
        rows: [
          {
            objects: n,
            'valid set': index.size,
            orphans: orphanCount,
            'too young': stats.tooYoung,
            'index ms': Math.round(t1 - t0),
            'list+classify ms': Math.round(t2 - t1),
            'objects/s': Math.round(n / ((t2 - t1) / 1000)),
            'peak RSS MB': mb(peak),
            'RSS growth MB': mb(peak - rssStart),
          },
        ],
        notes: [
          'valid paths written as s3a:// and listed as s3:// (normalised before matching); keys pre-sorted in a listing-only memory store',
        ],
        data: { objects: n, stats, indexMs: t1 - t0, classifyMs: t2 - t1, peakRssBytes: peak, rssStartBytes: rssStart },
      };
    } finally {
      await sampler.stop();
    }
  },
};

export default bench;
