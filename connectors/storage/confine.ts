/**
 * Delete confinement: the one rule deciding whether floe may delete a location on a table's behalf.
 *
 * Table metadata is input, not authority. A crafted (or merely broken) manifest can name `/etc/passwd`,
 * `file:///home/me/x`, `s3://other-bucket/k`, `s3://b/t/data/../../x` or a relative `data/x.parquet`;
 * following it would delete files the table never owned. So every maintenance delete (expire, orphan
 * removal, cleanup after failed commits) goes through a DeleteScope built from the table's own locations —
 * its root and the data/metadata locations its configuration names — and anything else is refused (the
 * caller skips and reports it), unless the user opted in explicitly.
 *
 * Locations are compared where the bytes live: after `--location-map` (the caller supplies the mapping)
 * and normalisation (s3a/s3n → s3, `file:` and bare paths alike, `.`/`..`/`//` collapsed). S3 keys are
 * literal (`a/../b` is a key of its own) but some servers and proxies collapse dot segments, so an S3
 * location must lie under a root both as written and with dot segments collapsed. A local file must also
 * sit in a directory that really is inside a local root (a symlinked directory in the table does not
 * lead out of it).
 */
import { realpathSync } from 'node:fs';
import * as path from 'node:path';
import { isAbsoluteLocation, parseLocation, type Location } from './location.js';

export interface DeleteScopeOptions {
  /**
   * Also allow absolute locations outside the roots (the user's explicit opt-in, e.g.
   * `--allow-outside-table-location`). Relative paths outside the roots and unparsable locations stay refused.
   */
  allowOutside?: boolean;
}

export interface IgnoredRoot {
  location: string;
  why: string;
}

/** Where a location lives now (normalised, mapped): FileIO.map. */
export type LocationMapper = (location: string) => string;

export class DeleteScope {
  /** Normalised, mapped roots (deletes must lie strictly below one of them). */
  readonly roots: string[] = [];
  /** Configured locations that were not accepted as roots (relative, a bucket or filesystem root, unparsable). */
  readonly ignoredRoots: IgnoredRoot[] = [];
  private readonly parsed: Location[] = [];
  /** realpath cache for local directories (one run sees the same directories many times). */
  private readonly realDirs = new Map<string, string | undefined>();

  /**
   * `tableLocation` is where the table's metadata says it lives; it may be relative (some writers, e.g.
   * DuckDB's test tables, write relative locations) and is resolved and mapped exactly as floe reads it.
   * `configured` are extra locations from the table's configuration; they must be absolute.
   */
  constructor(
    tableLocation: string,
    configured: readonly (string | undefined)[],
    private readonly map: LocationMapper,
    private readonly options: DeleteScopeOptions = {},
  ) {
    this.addRoot(tableLocation, true);
    for (const raw of configured) this.addRoot(raw, false);
  }

  private addRoot(raw: string | undefined, relativeOk: boolean): void {
    if (raw === undefined || raw.trim() === '') return;
    if (!relativeOk && !isAbsoluteLocation(raw)) {
      this.ignoredRoots.push({ location: raw, why: 'a relative location' });
      return;
    }
    let loc: Location;
    try {
      loc = parseLocation(this.map(raw));
    } catch (e) {
      this.ignoredRoots.push({ location: raw, why: (e as Error).message });
      return;
    }
    if (fsNormal(loc.path) === '' || fsNormal(loc.path) === '/') {
      this.ignoredRoots.push({ location: raw, why: 'a whole bucket or filesystem root' });
      return;
    }
    const text = loc.scheme === 'file' ? `file://${loc.path}` : `${loc.scheme}://${loc.authority}${loc.path}`;
    if (this.roots.includes(text)) return;
    this.roots.push(text);
    this.parsed.push(loc);
  }

  get allowsOutside(): boolean {
    return this.options.allowOutside === true;
  }

  /**
   * Why `location` may not be deleted; undefined when it may. `location` is spelled as the metadata names
   * it (resolved and mapped here exactly as floe reads it), or with `mapped` as a listing reports it.
   */
  refusal(location: string, options: { mapped?: boolean } = {}): string | undefined {
    let loc: Location;
    try {
      loc = parseLocation(options.mapped ? location : this.map(location));
    } catch (e) {
      return `not a usable location (${(e as Error).message})`;
    }
    if (this.parsed.some((root) => within(root, loc))) {
      const escape = loc.scheme === 'file' ? this.symlinkEscape(loc.path) : undefined;
      if (escape === undefined || this.options.allowOutside) return undefined;
      return escape;
    }
    const relative = !isAbsoluteLocation(location);
    // a relative path outside the table is never deleted: what it is relative to is a guess
    if (this.options.allowOutside && !relative) return undefined;
    const where = this.roots.length > 0 ? this.roots.join(', ') : 'none could be determined';
    const real = loc.scheme === 'file' ? `file://${loc.path}` : `${loc.scheme}://${loc.authority}${loc.path}`;
    return relative
      ? `a relative path (read as ${real}) outside the table's locations (${where})`
      : `outside the table's locations (${where})`;
  }

  /**
   * Local files: the directory holding the file must really be inside a local root — a symlinked directory
   * in the table (`data/x -> /etc`) would otherwise let a lexically inside path delete elsewhere. A parent
   * that does not exist holds nothing to delete.
   */
  private symlinkEscape(file: string): string | undefined {
    const dir = path.posix.dirname(file);
    const realDir = realDirectory(dir, this.realDirs);
    if (realDir === undefined || realDir === dir) return undefined;
    const realRoots = this.parsed
      .filter((r) => r.scheme === 'file')
      .map((r) => realDirectory(r.path, this.realDirs) ?? r.path);
    if (realRoots.some((r) => realDir === r || realDir.startsWith(r.endsWith('/') ? r : `${r}/`))) return undefined;
    return `its directory ${dir} is a symbolic link to ${realDir}, outside the table's locations (${this.roots.join(', ')})`;
  }

  allows(location: string, options: { mapped?: boolean } = {}): boolean {
    return this.refusal(location, options) === undefined;
  }
}

function realDirectory(dir: string, cache: Map<string, string | undefined>): string | undefined {
  if (cache.has(dir)) return cache.get(dir);
  let real: string | undefined;
  try {
    real = realpathSync(dir);
  } catch {
    real = undefined;
  }
  cache.set(dir, real);
  return real;
}

/** POSIX normal form of a path, without a trailing slash ('' stays ''). */
function fsNormal(p: string): string {
  if (p === '') return '';
  const n = path.posix.normalize(p);
  return n.length > 1 ? n.replace(/\/+$/, '') || '/' : n;
}

function strictlyBelow(rootPath: string, p: string): boolean {
  const prefix = rootPath.endsWith('/') ? rootPath : `${rootPath}/`;
  return p.length > prefix.length && p.startsWith(prefix);
}

function within(root: Location, loc: Location): boolean {
  if (root.scheme !== loc.scheme || root.authority !== loc.authority) return false;
  // file paths are already normalised by parseLocation; S3 keys are checked as written *and* collapsed
  return strictlyBelow(root.path, loc.path) && strictlyBelow(fsNormal(root.path), fsNormal(loc.path));
}

/**
 * Best-effort cleanup of a run's own files (after a commit is known to have failed): deletes the locations
 * the scope allows through `remove`, ignoring errors (leftovers are orphans for remove-orphans), and
 * returns the refused ones so the caller can report them. For compaction / rewrite cleanup paths.
 */
export async function removeWithin(
  scope: DeleteScope,
  locations: readonly string[],
  remove: (location: string) => Promise<unknown>,
): Promise<string[]> {
  const refused = locations.filter((l) => !scope.allows(l));
  await Promise.all(locations.filter((l) => scope.allows(l)).map((l) => remove(l).catch(() => undefined)));
  return refused;
}
