/**
 * Maintenance deletes (expire, remove-orphans, cleanup): candidates confined to the table's locations
 * (confine.ts), then deleted in store-sized batches (deleteMany) with a bounded number of batches in
 * flight. Deleting a missing object succeeds, so re-running after an interruption is safe.
 */
import pLimit from 'p-limit';
import type { DeletionCandidate, SkippedDeletion } from '../../model/maintenance-report.js';
import type { DeleteScope } from './confine.js';
import type { FileIO } from './file-io.js';
import { isAbsoluteLocation, normalizeLocation } from './location.js';
import type { ObjectStore } from './object-store.js';

export interface DeleteBatchOptions {
  /** Keys per deleteMany call (S3 DeleteObjects accepts at most 1000). */
  batchSize?: number;
  /** deleteMany calls in flight at once. */
  concurrency?: number;
  /** Called after each batch with the running count, for progress output. */
  onProgress?: (done: number, total: number) => void;
}

export interface ConfineOptions {
  /** Candidates come from a listing: their locations are already real (no location mapping). */
  listed?: boolean;
}

export interface DeleteOutcome {
  deleted: string[];
  failed: { location: string; error: string }[];
}

export async function deleteInBatches(
  io: FileIO,
  locations: readonly string[],
  options: DeleteBatchOptions = {},
): Promise<DeleteOutcome> {
  return deleteTargets(
    io,
    locations.map((l) => ({ resolveFrom: l, report: l, listed: false })),
    options,
  );
}

interface DeleteTarget {
  /** The spelling resolved through FileIO (metadata's, so the location map applies exactly once). */
  resolveFrom: string;
  /** What the report names. */
  report: string;
  /** `resolveFrom` is already real (listing): resolve without the location map. */
  listed: boolean;
}

async function deleteTargets(
  io: FileIO,
  targets: readonly DeleteTarget[],
  options: DeleteBatchOptions,
): Promise<DeleteOutcome> {
  const batchSize = Math.max(1, Math.min(1000, options.batchSize ?? 1000));
  const limit = pLimit(Math.max(1, options.concurrency ?? 4));
  // group by store, remembering which location each key came from
  const byStore = new Map<ObjectStore, { keys: string[]; locations: string[] }>();
  const out: DeleteOutcome = { deleted: [], failed: [] };
  for (const { resolveFrom, report: location, listed } of targets) {
    let r;
    try {
      r = listed ? io.resolveMapped(resolveFrom) : io.resolve(resolveFrom);
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
            for (const f of res.failed)
              out.failed.push({ location: byKey.get(f.key) ?? store.describe(f.key), error: f.error.message });
          } catch (e) {
            for (const l of locs) out.failed.push({ location: l, error: (e as Error).message });
          }
          done += keys.length;
          options.onProgress?.(done, targets.length);
        }),
      );
    }
  }
  await Promise.all(tasks);
  return out;
}

/**
 * Splits a plan's candidates (locations as the metadata or a listing names them) into what the scope lets
 * floe delete and what it refuses. Both come back with `location` = where the file really is (mapped,
 * normalised) and `metadataLocation` = the metadata's spelling when a location map changed it — so a dry
 * run lists exactly the objects the real run deletes.
 */
export function confineCandidates(
  io: FileIO,
  scope: DeleteScope,
  candidates: readonly DeletionCandidate[],
  options: ConfineOptions = {},
): { allowed: DeletionCandidate[]; skipped: SkippedDeletion[] } {
  const allowed: DeletionCandidate[] = [];
  const skipped: SkippedDeletion[] = [];
  const seen = new Set<string>();
  for (const c of candidates) {
    const named = c.metadataLocation ?? c.location;
    const refused = scope.refusal(named, { mapped: options.listed === true });
    const real = options.listed ? tryOr(() => normalizeLocation(named)) : tryOr(() => io.map(named));
    const located: DeletionCandidate = { ...c, location: real ?? named };
    delete located.metadataLocation;
    // name the metadata's spelling beside the real location when they differ by more than normalisation
    const mapped = real !== undefined && (real !== tryOr(() => normalizeLocation(named)) || !isAbsoluteLocation(named));
    if (!options.listed && mapped) located.metadataLocation = named;
    if (refused !== undefined) {
      skipped.push({ ...located, refused });
      continue;
    }
    if (seen.has(located.location)) continue; // two spellings of one object: delete (and list) it once
    seen.add(located.location);
    allowed.push(located);
  }
  return { allowed, skipped };
}

/**
 * Deletes confined candidates (from confineCandidates): each is checked against the scope once more and
 * resolved from the same spelling the plan used, so what is deleted is what was listed. Reports real
 * locations.
 */
export async function deleteCandidates(
  io: FileIO,
  scope: DeleteScope,
  candidates: readonly DeletionCandidate[],
  options: DeleteBatchOptions & ConfineOptions = {},
): Promise<DeleteOutcome> {
  const targets: DeleteTarget[] = [];
  const refused: DeleteOutcome['failed'] = [];
  const listed = options.listed === true;
  for (const c of candidates) {
    const named = c.metadataLocation ?? c.location;
    const why = scope.refusal(named, { mapped: listed });
    if (why !== undefined) refused.push({ location: c.location, error: `not deleted: ${why}` });
    else targets.push({ resolveFrom: named, report: c.location, listed });
  }
  const out = await deleteTargets(io, targets, options);
  out.failed.push(...refused);
  return out;
}

function tryOr<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** Warnings for files the scope refused and for configured locations it could not accept as roots. */
export function confinementWarnings(scope: DeleteScope, skipped: number): string[] {
  const out: string[] = [];
  for (const r of scope.ignoredRoots)
    out.push(`configured location ${r.location} is not used as a delete root (${r.why})`);
  if (skipped > 0) {
    out.push(
      `${skipped} file(s) the metadata names lie outside the table's locations (${scope.roots.join(', ') || 'none'}); ` +
        'they were not deleted (listed as skipped). If they really belong to this table, re-run with --allow-outside-table-location',
    );
  }
  return out;
}
