/**
 * Progress for the maintenance jobs, which have no task events of their own: the caller counts what the
 * job reads, lists and deletes through its FileIO (the job's code is unchanged; only this instance is
 * observed). The CLI's progress bar (src/shells/cli/progress.ts) is one such counter.
 */
import pLimit from 'p-limit';
import type { FileIO } from '../../connectors/storage/file-io.js';

/**
 * Sizes looked up with one HEAD each, 8 at a time (a few requests in flight, not one per file at once). An
 * object already gone, or unreadable, gets no size rather than a guess.
 */
export async function headSizes<T>(
  items: readonly T[],
  sizeOf: (item: T) => Promise<number>,
  onSize: (item: T, size: number) => void,
): Promise<void> {
  const limit = pLimit(8);
  await Promise.all(
    items.map((item) =>
      limit(async () => {
        let size: number;
        try {
          size = await sizeOf(item);
        } catch {
          return;
        }
        onSize(item, size);
      }),
    ),
  );
}

/** What observeStoreIO reports to: phases and counters (the CLI's `Progress` satisfies it). */
export interface StoreProgress {
  count(what: 'rows' | 'filesRead' | 'filesDeleted', n: number, bytes?: number): void;
  phase(name: string): void;
}

type AnyStore = { deleteMany?: (keys: string[]) => Promise<{ deleted: string[] }> } & object;

/** Files whose size the maintenance jobs do not carry: manifest lists and metadata (Iceberg), manifests and snapshots (Paimon). */
const METADATA_KEY = /(^|\/)(metadata|manifest|snapshot)\/[^/]+$/;

/** The size observeStoreIO saw for a file just before deleting it. */
export function knownSize(io: object, location: string): number | undefined {
  const f = (io as { knownSize?: (l: string) => number | undefined }).knownSize;
  return typeof f === 'function' ? f(location) : undefined;
}

export function observeStoreIO(io: FileIO, progress: StoreProgress): FileIO {
  const x = io as unknown as Record<string, unknown>;
  const read = io.read.bind(io);
  const readRange = io.readRange.bind(io);
  const list = io.list.bind(io);
  const resolveLocation = io.resolve.bind(io);
  x.read = async (location: string) => {
    progress.phase('reading');
    const bytes = await read(location);
    progress.count('filesRead', 1, bytes.byteLength);
    return bytes;
  };
  x.readRange = async (location: string, offset: number, length: number) => {
    const bytes = await readRange(location, offset, length);
    progress.count('filesRead', 0, bytes.byteLength);
    return bytes;
  };
  x.list = async function* (root: string, ...rest: unknown[]) {
    progress.phase('listing');
    for await (const f of (list as (...a: unknown[]) => AsyncIterable<unknown>)(root, ...rest)) yield f;
  };
  const proxies = new WeakMap<object, object>();
  /** Sizes of metadata files looked up just before they are deleted (the jobs delete them by name). */
  const sizes = new WeakMap<object, Map<string, number>>();
  const recordSizes = async (store: AnyStore, keys: string[]) => {
    const head = (store as { head?: (k: string) => Promise<{ size: number }> }).head;
    if (typeof head !== 'function') return;
    const todo = keys.filter((k) => METADATA_KEY.test(k));
    let m = sizes.get(store);
    if (!m) sizes.set(store, (m = new Map()));
    const known = m;
    await headSizes(
      todo,
      async (k) => (await head.call(store, k)).size,
      (k, size) => known.set(k, size),
    );
  };
  const remove = io.remove.bind(io);
  x.remove = async (location: string) => {
    const r = resolveLocation(location);
    await recordSizes(r.store as unknown as AnyStore, [r.key]);
    await remove(location);
    progress.count('filesDeleted', 1);
  };
  x.knownSize = (location: string): number | undefined => {
    const r = resolveLocation(location);
    return sizes.get(r.store as unknown as object)?.get(r.key);
  };
  x.resolve = (location: string) => {
    const r = resolveLocation(location);
    const store = r.store as unknown as AnyStore;
    let p = proxies.get(store);
    if (!p) {
      p = new Proxy(store, {
        get(target, prop) {
          const v = Reflect.get(target, prop, target) as unknown;
          if (prop === 'deleteMany' && typeof v === 'function') {
            return async (keys: string[]) => {
              progress.phase('deleting');
              await recordSizes(target, keys);
              const res = await (v as (k: string[]) => Promise<{ deleted: string[] }>).call(target, keys);
              progress.count('filesDeleted', res.deleted.length);
              return res;
            };
          }
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      proxies.set(store, p);
    }
    return { ...r, store: p };
  };
  return io;
}
