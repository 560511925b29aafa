/**
 * Deletes a list of locations in store-sized batches (deleteMany) with a bounded number of batches in
 * flight. Deleting a missing object succeeds, so re-running after an interruption is safe.
 */
import pLimit from 'p-limit';
import type { ObjectStore } from '../../connectors/storage/index.js';
import type { StoreIO } from './store-io.js';

export interface DeleteBatchOptions {
  /** Keys per deleteMany call (S3 DeleteObjects accepts at most 1000). */
  batchSize?: number;
  /** deleteMany calls in flight at once. */
  concurrency?: number;
  /** Called after each batch with the running count, for progress output. */
  onProgress?: (done: number, total: number) => void;
}

export interface DeleteOutcome {
  deleted: string[];
  failed: { location: string; error: string }[];
}

export async function deleteInBatches(io: StoreIO, locations: readonly string[], options: DeleteBatchOptions = {}): Promise<DeleteOutcome> {
  const batchSize = Math.max(1, Math.min(1000, options.batchSize ?? 1000));
  const limit = pLimit(Math.max(1, options.concurrency ?? 4));
  // group by store, remembering which location each key came from
  const byStore = new Map<ObjectStore, { keys: string[]; locations: string[] }>();
  const out: DeleteOutcome = { deleted: [], failed: [] };
  for (const location of locations) {
    let r;
    try {
      r = io.resolveLocation(location);
    } catch (e) {
      out.failed.push({ location, error: (e as Error).message });
      continue;
    }
    let g = byStore.get(r.store);
    if (!g) byStore.set(r.store, (g = { keys: [], locations: [] }));
    g.keys.push(r.key);
    g.locations.push(location);
  }
  const tasks: Promise<void>[] = [];
  let done = 0;
  for (const [store, g] of byStore) {
    for (let i = 0; i < g.keys.length; i += batchSize) {
      const keys = g.keys.slice(i, i + batchSize);
      const locs = g.locations.slice(i, i + batchSize);
      tasks.push(
        limit(async () => {
          const byKey = new Map(keys.map((k, j) => [k, locs[j]!]));
          try {
            const res = await store.deleteMany(keys);
            for (const k of res.deleted) out.deleted.push(byKey.get(k) ?? store.describe(k));
            for (const f of res.failed) out.failed.push({ location: byKey.get(f.key) ?? store.describe(f.key), error: f.error.message });
          } catch (e) {
            for (const l of locs) out.failed.push({ location: l, error: (e as Error).message });
          }
          done += keys.length;
          options.onProgress?.(done, locations.length);
        }),
      );
    }
  }
  await Promise.all(tasks);
  return out;
}
