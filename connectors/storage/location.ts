/**
 * Table and file locations as written in Iceberg/Paimon metadata: `s3://`, `s3a://`, `s3n://` (all the same
 * store), `file:/x`, `file:///x`, plain absolute or relative paths, and foreign schemes (hdfs://, gs://, …)
 * that only matter for mapping a relocated table to where it lives now.
 *
 * The normal form is a string: `s3://bucket/key`, `file:///abs/path`, `scheme://authority/path`, never with
 * a trailing slash (except a filesystem root). Two locations are equivalent iff their normal forms are equal.
 * S3 keys are kept byte for byte apart from trailing slashes ("a//b" and "a/b" are different objects);
 * filesystem-like paths are normalised (`//`, `.`, `..`).
 */
import * as path from 'node:path';
import { FloeError } from '../../util/errors.js';

export interface Location {
  /** Lower case; s3a/s3n become s3, plain paths become file. */
  scheme: string;
  /** Bucket or host[:port]; '' for file. */
  authority: string;
  /** '' or starting with '/'; no trailing slash except the root '/'. */
  path: string;
}

const S3_SCHEMES = new Set(['s3', 's3a', 's3n']);
/** Schemes whose paths are filesystem paths (Hadoop normalises them), so `//`, `.` and `..` collapse. */
const FS_LIKE_SCHEMES = new Set(['file', 'hdfs', 'viewfs', 'webhdfs', 'ofs', 'o3fs']);
const SCHEME_RE = /^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$/s;

function invalid(input: string, why: string): FloeError {
  return new FloeError('InvalidArgument', `invalid location ${JSON.stringify(input)}: ${why}`, {
    context: { file: input },
  });
}

export function parseLocation(input: string, cwd: string = process.cwd()): Location {
  if (input.trim() === '') throw invalid(input, 'empty');
  const m = SCHEME_RE.exec(input);
  // A one-letter "scheme" would be a Windows drive; floe runs on POSIX, so treat it as a path.
  if (!m || m[1]!.length === 1) return { scheme: 'file', authority: '', path: fsPath(path.resolve(cwd, input)) };
  let scheme = m[1]!.toLowerCase();
  const rest = m[2]!;
  if (S3_SCHEMES.has(scheme)) scheme = 's3';

  let authority = '';
  let p = rest;
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    p = slash < 0 ? '' : rest.slice(slash);
  }
  if (scheme === 'file') {
    if (authority !== '' && authority.toLowerCase() !== 'localhost') {
      throw new FloeError(
        'Unsupported',
        `file location ${input} names host ${authority}; only local files are supported`,
        {
          context: { file: input },
        },
      );
    }
    return { scheme, authority: '', path: fsPath(p.startsWith('/') ? p : path.resolve(cwd, p)) };
  }
  if (scheme === 's3') {
    if (authority === '') throw invalid(input, 'no bucket');
    return { scheme, authority, path: stripTrailingSlashes(p) };
  }
  authority = authority.toLowerCase();
  return { scheme, authority, path: FS_LIKE_SCHEMES.has(scheme) && p !== '' ? fsPath(p) : stripTrailingSlashes(p) };
}

function fsPath(p: string): string {
  const n = path.posix.normalize(p);
  return n.length > 1 ? stripTrailingSlashes(n) || '/' : n;
}

function stripTrailingSlashes(p: string): string {
  let end = p.length;
  while (end > 0 && p[end - 1] === '/') end--;
  return p.slice(0, end);
}

/**
 * True for locations that do not depend on the working directory: a scheme with an absolute part
 * (`s3://b/k`, `file:/x`, `file:///x`) or a path starting with '/'. Table metadata must name absolute
 * locations; `data/x.parquet` or `file:x` would be read relative to wherever floe happens to run.
 */
export function isAbsoluteLocation(input: string): boolean {
  const m = SCHEME_RE.exec(input);
  if (!m || m[1]!.length === 1) return input.startsWith('/');
  return m[2]!.startsWith('/');
}

/** `input` made independent of the working directory (relative paths resolved against `cwd`). */
export function absoluteLocation(input: string, cwd: string = process.cwd()): string {
  return isAbsoluteLocation(input) ? input : path.resolve(cwd, input);
}

export function formatLocation(loc: Location): string {
  return loc.scheme === 'file' ? `file://${loc.path}` : `${loc.scheme}://${loc.authority}${loc.path}`;
}

export function normalizeLocation(input: string, cwd?: string): string {
  return formatLocation(parseLocation(input, cwd));
}

export function sameLocation(a: string, b: string, cwd?: string): boolean {
  return normalizeLocation(a, cwd) === normalizeLocation(b, cwd);
}

/** Appends path segments (slashes between them are made single); the result is normalised. */
export function joinLocation(base: string, ...parts: string[]): string {
  const loc = parseLocation(base);
  let p = loc.path;
  for (const part of parts) {
    const trimmed = part.replace(/^\/+/, '');
    if (trimmed === '') continue;
    p = `${p.endsWith('/') ? p : p + '/'}${trimmed}`;
  }
  return formatLocation(parseLocation(formatLocation({ ...loc, path: p })));
}

/** The part of `location` below `base` ('' if equal), or undefined when it is not under `base`. */
export function relativeLocation(base: string, location: string, cwd?: string): string | undefined {
  const b = normalizeLocation(base, cwd);
  const l = normalizeLocation(location, cwd);
  if (l === b) return '';
  const prefix = b.endsWith('/') ? b : b + '/';
  return l.startsWith(prefix) ? l.slice(prefix.length) : undefined;
}

export function isUnder(base: string, location: string, cwd?: string): boolean {
  return relativeLocation(base, location, cwd) !== undefined;
}

export interface LocationMapping {
  from: string;
  to: string;
}

/**
 * `--location-map FROM=TO` rules: a location at or under FROM is read at the same relative path under TO.
 * Both sides and the looked-up location are normalised first, so s3a:// rules match s3:// paths and
 * `file:/x` rules match `/x`. The longest matching FROM wins.
 */
export class LocationMap {
  private readonly rules: LocationMapping[];

  constructor(mappings: readonly LocationMapping[] = [], cwd?: string) {
    this.rules = mappings
      .map((m) => ({ from: normalizeLocation(m.from, cwd), to: normalizeLocation(m.to, cwd) }))
      .sort((a, b) => b.from.length - a.from.length);
  }

  /** Parses repeated `FROM=TO` option values. */
  static parse(specs: readonly string[], cwd?: string): LocationMap {
    return new LocationMap(specs.map(parseLocationMapSpec), cwd);
  }

  get size(): number {
    return this.rules.length;
  }

  get mappings(): readonly LocationMapping[] {
    return this.rules;
  }

  /** The normalised location where `location` lives now (itself, normalised, if no rule matches). */
  apply(location: string, cwd?: string): string {
    const normalized = normalizeLocation(location, cwd);
    for (const rule of this.rules) {
      const rel = relativeLocation(rule.from, normalized);
      if (rel !== undefined) return rel === '' ? rule.to : joinLocation(rule.to, rel);
    }
    return normalized;
  }
}

/**
 * Splits `FROM=TO`. Paths may themselves contain '=' (Hive-style `dt=2024-01-01` partitions), so the
 * separator is the first '=' followed by something that starts a location (a scheme, '/', '.' or '~');
 * failing that, the first '='.
 */
export function parseLocationMapSpec(spec: string): LocationMapping {
  const starts = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/|\.|~)/;
  let split = -1;
  for (let i = spec.indexOf('='); i >= 0; i = spec.indexOf('=', i + 1)) {
    if (i > 0 && starts.test(spec.slice(i + 1))) {
      split = i;
      break;
    }
  }
  if (split < 0) split = spec.indexOf('=');
  const from = spec.slice(0, split);
  const to = spec.slice(split + 1);
  if (split <= 0 || to === '') {
    throw new FloeError('InvalidArgument', `--location-map expects FROM=TO, got ${JSON.stringify(spec)}`, {
      context: { spec },
    });
  }
  return { from, to: to.startsWith('~/') ? path.join(process.env.HOME ?? '~', to.slice(2)) : to };
}

/**
 * Appends path segments keeping the location's own spelling (scheme, `s3a://`, relative paths): table
 * metadata names child files this way, so messages and recorded paths match what the writer wrote.
 */
export function joinPath(base: string, ...parts: string[]): string {
  let out = base.replace(/\/+$/, '');
  for (const p of parts) out += '/' + p.replace(/^\/+/, '');
  return out;
}
