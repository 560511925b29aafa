/**
 * The format-neutral half of orphan-file removal: a set of valid file locations, and a classifier that
 * walks a listing of the table's storage and decides, for each object, whether it is in use, too young to
 * judge, hidden, or an orphan.
 *
 * Matching follows Java's DeleteOrphanFiles: locations are compared after normalisation (s3a/s3n → s3,
 * filesystem paths cleaned) and joined on the path alone; a path that matches but under another
 * scheme/authority is a *prefix mismatch*, handled by `prefixMismatch`: `error` (default — abort and list
 * them), `ignore` (keep the file) or `delete`. A valid location written without any scheme matches any.
 */
import { FloeError } from '../../util/errors.js';
import type { ListedFile } from './file-io.js';
import { isTempName } from './local-store.js';
import { parseLocation } from './location.js';

export type PrefixMismatchMode = 'error' | 'ignore' | 'delete';

/** Reason given for a leftover `.<name>.floe-tmp-*` file. */
export const TEMP_REASON = 'temporary file of a floe write that never completed (killed or failed job)';

const HAS_SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;

/** scheme://authority of a normalised location ("file://" for local files). */
function originOf(normalized: string): { origin: string; path: string } {
  const i = normalized.indexOf('://');
  if (i < 0) return { origin: '', path: normalized };
  const slash = normalized.indexOf('/', i + 3);
  return slash < 0
    ? { origin: normalized, path: '' }
    : { origin: normalized.slice(0, slash), path: normalized.slice(slash) };
}

/**
 * Valid locations, keyed by path; the value is the origin (scheme://authority) the metadata used, '' when
 * the metadata wrote a bare path, or several origins joined by '\n' (rare).
 */
export class ValidIndex {
  private readonly byPath = new Map<string, string>();
  private readonly origins = new Map<string, string>(); // interning: one string per origin

  constructor(private readonly normalize: (location: string) => string) {}

  get size(): number {
    return this.byPath.size;
  }

  add(rawLocation: string): void {
    const normalized = this.normalize(rawLocation);
    const { origin: o, path } = originOf(normalized);
    // a bare path in metadata matches whatever store it is found in, unless a location map rewrote it
    const bare =
      !HAS_SCHEME.test(rawLocation) &&
      normalized.startsWith('file://') &&
      normalized.slice('file://'.length) === rawLocation;
    let origin = bare ? '' : o;
    origin = this.origins.get(origin) ?? (this.origins.set(origin, origin), origin);
    const prev = this.byPath.get(path);
    if (prev === undefined) this.byPath.set(path, origin);
    else if (prev !== origin && !prev.split('\n').includes(origin)) this.byPath.set(path, `${prev}\n${origin}`);
  }

  /** 'valid', 'mismatch' (same path, other origin) or 'unknown'. */
  match(normalizedLocation: string): 'valid' | 'mismatch' | 'unknown' {
    const { origin, path } = originOf(normalizedLocation);
    const v = this.byPath.get(path);
    if (v === undefined) return 'unknown';
    if (v === origin || v === '') return 'valid';
    const all = v.split('\n');
    return all.includes(origin) || all.includes('') ? 'valid' : 'mismatch';
  }
}

export interface ClassifyOptions {
  /** Objects modified at or after this time are never deleted. */
  olderThanMs: number;
  prefixMismatch: PrefixMismatchMode;
  /** Path components that start with `_` or `.` hide everything below them, except these (partition dirs). */
  allowedHiddenPrefixes?: readonly string[];
  /** Extra reason for a candidate (format-specific wording). */
  orphanReason?: string;
}

export interface OrphanCandidate {
  location: string;
  bytes: number;
  lastModified: Date;
  reason: string;
}

export interface ClassifyStats {
  listed: number;
  valid: number;
  tooYoung: number;
  hidden: number;
  mismatched: number;
  orphans: number;
  orphanBytes: number;
}

export function newStats(): ClassifyStats {
  return { listed: 0, valid: 0, tooYoung: 0, hidden: 0, mismatched: 0, orphans: 0, orphanBytes: 0 };
}

/** True when some path component below `root` starts with `_` or `.` (Java's hidden-path filter). */
export function isHiddenBelow(rel: string, allowed: readonly string[] = []): boolean {
  let start = 0;
  while (start < rel.length) {
    let end = rel.indexOf('/', start);
    if (end < 0) end = rel.length;
    const c = rel.charCodeAt(start);
    if (c === 95 /* _ */ || c === 46 /* . */) {
      const part = rel.slice(start, end);
      if (!allowed.some((p) => part.startsWith(p))) return true;
    }
    start = end + 1;
  }
  return false;
}

/**
 * Streams a listing of `root` through the valid index, calling `onOrphan` for every deletable object.
 * Mismatches are collected; in `error` mode the caller gets a FloeError listing (up to 20 of) them at the end.
 */
export async function classifyListing(
  root: string,
  listing: AsyncIterable<ListedFile>,
  valid: ValidIndex,
  options: ClassifyOptions,
  onOrphan: (c: OrphanCandidate) => void,
  stats: ClassifyStats = newStats(),
): Promise<{ stats: ClassifyStats; mismatches: string[] }> {
  const mismatches: string[] = [];
  const base = root.endsWith('/') ? root : `${root}/`;
  const cutoff = options.olderThanMs;
  for await (const f of listing) {
    stats.listed++;
    const rel = f.location.startsWith(base) ? f.location.slice(base.length) : f.location;
    const slash = rel.lastIndexOf('/');
    if (
      isTempName(rel.slice(slash + 1)) &&
      !isHiddenBelow(rel.slice(0, Math.max(0, slash)), options.allowedHiddenPrefixes)
    ) {
      // `.<name>.floe-tmp-*`: a write of floe's that never published (killed job); never a table file
      if (f.lastModified.getTime() >= cutoff) {
        stats.tooYoung++;
        continue;
      }
      stats.orphans++;
      stats.orphanBytes += f.size;
      onOrphan({ location: f.location, bytes: f.size, lastModified: f.lastModified, reason: TEMP_REASON });
      continue;
    }
    if (isHiddenBelow(rel, options.allowedHiddenPrefixes)) {
      stats.hidden++;
      continue;
    }
    const m = valid.match(f.location);
    if (m === 'valid') {
      stats.valid++;
      continue;
    }
    if (f.lastModified.getTime() >= cutoff) {
      stats.tooYoung++;
      continue;
    }
    if (m === 'mismatch') {
      stats.mismatched++;
      if (options.prefixMismatch === 'error') {
        mismatches.push(f.location);
        continue;
      }
      if (options.prefixMismatch === 'ignore') continue;
      onOrphan({
        location: f.location,
        bytes: f.size,
        lastModified: f.lastModified,
        reason: 'referenced only under another scheme/authority (--prefix-mismatch delete)',
      });
      stats.orphans++;
      stats.orphanBytes += f.size;
      continue;
    }
    stats.orphans++;
    stats.orphanBytes += f.size;
    onOrphan({
      location: f.location,
      bytes: f.size,
      lastModified: f.lastModified,
      reason: options.orphanReason ?? 'not referenced by table metadata',
    });
  }
  return { stats, mismatches };
}

export function mismatchError(table: string, mismatches: readonly string[]): FloeError {
  const sample = mismatches.slice(0, 20).join(', ');
  return new FloeError(
    'PreconditionFailed',
    `${table}: ${mismatches.length} file(s) match metadata paths only after ignoring scheme/authority (e.g. ${sample}); ` +
      'nothing was deleted. If they are the same files, map the locations (--location-map) or pass --prefix-mismatch ignore; ' +
      'to delete them pass --prefix-mismatch delete',
    { context: { table, mismatches: mismatches.slice(0, 100) } },
  );
}

/**
 * Roots to list: the given locations with nested ones dropped (listing the outer one covers them).
 * Locations are normalised first.
 */
export function collapseRoots(locations: readonly string[]): string[] {
  const norm = [...new Set(locations)].sort((a, b) => a.length - b.length);
  const out: string[] = [];
  for (const l of norm) if (!out.some((r) => l === r || l.startsWith(`${r}/`))) out.push(l);
  return out;
}

export function assertParsable(location: string): void {
  parseLocation(location);
}
