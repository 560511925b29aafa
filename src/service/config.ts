/**
 * `floe serve` configuration (YAML or JSON): which tables, which jobs on what schedule, how many tables at
 * once, where state lives. Every value is checked on load and every error names its key, e.g.
 * `floe.yaml: tables[2].jobs.expire.olderThan: "5x" is neither a duration …`.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { FloeError, isFloeError } from '../errors.js';
import { parseCutoff, parseDurationMs } from '../maintenance/duration.js';
import { parseSchedule, type Schedule } from './schedule.js';
import { JOB_KINDS, type CompactJobOptions, type ExpireJobOptions, type JobKind, type RemoveOrphansJobOptions, type TableAccess } from './job-types.js';

export interface JobConfig {
  kind: JobKind;
  schedule: Schedule;
  dryRun: boolean;
  compact?: CompactJobOptions;
  expire?: ExpireJobOptions;
  removeOrphans?: RemoveOrphansJobOptions;
}

export interface TableConfig {
  /** Unique; names the state file, log lines, metrics labels and `POST /run/<name>/<job>`. */
  name: string;
  /** Location, or `<ns>.<table>` when `access.catalog` is set. */
  table: string;
  access: TableAccess;
  properties: Record<string, string>;
  jobs: JobConfig[];
}

export interface ServiceConfig {
  /** The file it came from (for messages). */
  source: string;
  stateDir: string;
  /** Tables maintained at the same time. */
  concurrency: number;
  timezone: string;
  backoff: { initialMs: number; maxMs: number };
  /** How long shutdown waits for running jobs. */
  shutdownTimeoutMs: number;
  tables: TableConfig[];
}

export const DEFAULTS = {
  concurrency: 1,
  timezone: 'UTC',
  backoffInitialMs: 60_000,
  backoffMaxMs: 6 * 3_600_000,
  shutdownTimeoutMs: 5 * 60_000,
};

export async function loadServiceConfig(file: string): Promise<ServiceConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new FloeError('NotFound', `cannot read service config ${file}: ${e instanceof Error ? e.message : String(e)}`, { context: { file }, cause: e });
  }
  let raw: unknown;
  try {
    // YAML is a superset of JSON, so one parser reads both
    raw = parseYaml(text);
  } catch (e) {
    throw new FloeError('InvalidArgument', `${file}: not valid YAML/JSON: ${e instanceof Error ? e.message : String(e)}`, { context: { file }, cause: e });
  }
  return parseServiceConfig(raw, file, path.dirname(path.resolve(file)));
}

/** Validates a parsed config; relative local paths resolve against `baseDir` (the config file's folder). */
export async function parseServiceConfig(raw: unknown, source: string, baseDir: string = process.cwd()): Promise<ServiceConfig> {
  const v = new Validator(source);
  const top = v.object(raw, '');
  v.keys(top, '', ['stateDir', 'concurrency', 'timezone', 'backoff', 'shutdownTimeout', 'defaults', 'tables']);
  const timezone = v.optString(top.timezone, 'timezone') ?? DEFAULTS.timezone;
  checkTimezone(v, timezone);
  const stateDir = v.string(top.stateDir, 'stateDir');
  const concurrency = v.optInt(top.concurrency, 'concurrency', 1) ?? DEFAULTS.concurrency;
  const backoffRaw = top.backoff === undefined ? {} : v.object(top.backoff, 'backoff');
  v.keys(backoffRaw, 'backoff', ['initial', 'max']);
  const initialMs = v.optDuration(backoffRaw.initial, 'backoff.initial') ?? DEFAULTS.backoffInitialMs;
  const maxMs = v.optDuration(backoffRaw.max, 'backoff.max') ?? Math.max(DEFAULTS.backoffMaxMs, initialMs);
  if (maxMs < initialMs) v.fail('backoff.max', `must not be shorter than backoff.initial`);
  const shutdownTimeoutMs = v.optDuration(top.shutdownTimeout, 'shutdownTimeout') ?? DEFAULTS.shutdownTimeoutMs;

  const defaults = top.defaults === undefined ? {} : v.object(top.defaults, 'defaults');
  v.keys(defaults, 'defaults', ['properties', 'jobs']);
  const defaultProps = v.optStringMap(defaults.properties, 'defaults.properties') ?? {};
  const defaultJobs = defaults.jobs === undefined ? {} : v.object(defaults.jobs, 'defaults.jobs');
  v.keys(defaultJobs, 'defaults.jobs', JOB_KINDS);

  if (!Array.isArray(top.tables) || top.tables.length === 0) v.fail('tables', 'must be a non-empty list of tables');
  const names = new Set<string>();
  const sizes: { at: string; text: string }[] = [];
  const tables = (top.tables as unknown[]).map((t, i) => {
    const where = `tables[${i}]`;
    const o = v.object(t, where);
    v.keys(o, where, ['name', 'location', 'id', 'catalog', 'catalogName', 'warehouse', 'token', 'locationMap', 'properties', 'jobs']);
    const location = v.optString(o.location, `${where}.location`);
    const id = v.optString(o.id, `${where}.id`);
    const catalog = v.optString(o.catalog, `${where}.catalog`);
    if ((location === undefined) === (id === undefined)) v.fail(where, 'give exactly one of location (a table path or URL) or id (<ns>.<table> with catalog)');
    if (id !== undefined && catalog === undefined) v.fail(`${where}.catalog`, 'is required with id (sql:<sqlite-path|postgresql-url> or rest:<url>)');
    if (catalog !== undefined && !/^(sql|rest):./.test(catalog)) v.fail(`${where}.catalog`, `"${catalog}" must be sql:<sqlite-path|postgresql-url> or rest:<url>`);
    if (location !== undefined && catalog !== undefined) v.fail(`${where}.catalog`, 'a catalog table is named by id, not location');
    const table = id ?? resolveLocation(location!, baseDir);
    const name = v.optString(o.name, `${where}.name`) ?? defaultName(id ?? location!);
    if (!/^[A-Za-z0-9._-]+$/.test(name)) v.fail(`${where}.name`, `"${name}" may only hold letters, digits, ".", "_" and "-" (it names files and URLs)`);
    if (names.has(name)) v.fail(`${where}.name`, `"${name}" is used by another table; names must be unique`);
    names.add(name);
    const locationMap = o.locationMap === undefined ? undefined : v.stringList(o.locationMap, `${where}.locationMap`);
    for (const [k, m] of (locationMap ?? []).entries()) if (!/^.+=.+$/.test(m)) v.fail(`${where}.locationMap[${k}]`, `"${m}" must be FROM=TO`);
    const access: TableAccess = {
      ...(catalog ? { catalog: resolveCatalog(catalog, baseDir) } : {}),
      ...(o.catalogName !== undefined ? { catalogName: v.string(o.catalogName, `${where}.catalogName`) } : {}),
      ...(o.warehouse !== undefined ? { warehouse: v.string(o.warehouse, `${where}.warehouse`) } : {}),
      ...(o.token !== undefined ? { token: v.string(o.token, `${where}.token`) } : {}),
      ...(locationMap ? { locationMap } : {}),
    };
    const properties = { ...defaultProps, ...(v.optStringMap(o.properties, `${where}.properties`) ?? {}) };
    const ownJobs = o.jobs === undefined ? {} : v.object(o.jobs, `${where}.jobs`);
    v.keys(ownJobs, `${where}.jobs`, JOB_KINDS);
    const jobs: JobConfig[] = [];
    for (const kind of JOB_KINDS) {
      const own = ownJobs[kind];
      // a table's own entry replaces the default one for that job; `false` switches the job off
      const entry = own !== undefined ? { raw: own, at: `${where}.jobs.${kind}` } : defaultJobs[kind] !== undefined ? { raw: defaultJobs[kind], at: `defaults.jobs.${kind}` } : undefined;
      if (!entry || entry.raw === false) continue;
      const job = parseJob(v, kind, entry.raw, entry.at, timezone, sizes);
      if (job) jobs.push(job);
    }
    if (jobs.length === 0) v.fail(`${where}.jobs`, 'no job is enabled for this table (and defaults.jobs gives none)');
    return { name, table, access, properties, jobs };
  });
  await checkSizes(v, sizes);
  return { source, stateDir: path.resolve(baseDir, stateDir), concurrency, timezone, backoff: { initialMs, maxMs }, shutdownTimeoutMs, tables };
}

function parseJob(v: Validator, kind: JobKind, raw: unknown, where: string, timezone: string, sizes: { at: string; text: string }[]): JobConfig | undefined {
  // shorthand: `expire: daily`
  const o = typeof raw === 'string' ? { schedule: raw } : v.object(raw, where);
  const common = ['schedule', 'enabled', 'dryRun'];
  const specific: Record<JobKind, string[]> = {
    compact: ['strategy', 'targetSize', 'where', 'partialProgress', 'maxConcurrentGroups', 'full'],
    expire: ['olderThan', 'retainLast', 'cleanFiles'],
    'remove-orphans': ['olderThan', 'force', 'prefixMismatch'],
  };
  v.keys(o, where, [...common, ...specific[kind]]);
  if (v.optBool(o.enabled, `${where}.enabled`) === false) return undefined;
  const schedule = wrap(v, () => parseSchedule(v.string(o.schedule, `${where}.schedule`), `${v.source}: ${where}.schedule`, timezone));
  const job: JobConfig = { kind, schedule, dryRun: v.optBool(o.dryRun, `${where}.dryRun`) ?? false };
  if (kind === 'compact') {
    const strategy = v.optString(o.strategy, `${where}.strategy`);
    if (strategy !== undefined && strategy !== 'tiered' && strategy !== 'binpack') v.fail(`${where}.strategy`, `must be tiered or binpack, got "${strategy}"`);
    const targetSize = v.optString(o.targetSize, `${where}.targetSize`, true);
    if (targetSize !== undefined) sizes.push({ at: `${where}.targetSize`, text: targetSize });
    const c: CompactJobOptions = {};
    if (strategy) c.strategy = strategy as 'tiered' | 'binpack';
    if (targetSize !== undefined) c.targetSize = targetSize;
    const w = v.optString(o.where, `${where}.where`);
    if (w !== undefined) c.where = w;
    const pp = v.optBool(o.partialProgress, `${where}.partialProgress`);
    if (pp !== undefined) c.partialProgress = pp;
    const g = v.optInt(o.maxConcurrentGroups, `${where}.maxConcurrentGroups`, 1);
    if (g !== undefined) c.maxConcurrentGroups = g;
    const full = v.optBool(o.full, `${where}.full`);
    if (full !== undefined) c.full = full;
    job.compact = c;
  } else if (kind === 'expire') {
    const e: ExpireJobOptions = {};
    const olderThan = v.optOlderThan(o.olderThan, `${where}.olderThan`);
    if (olderThan !== undefined) e.olderThan = olderThan;
    const keep = v.optInt(o.retainLast, `${where}.retainLast`, 1);
    if (keep !== undefined) e.retainLast = keep;
    const clean = v.optBool(o.cleanFiles, `${where}.cleanFiles`);
    if (clean !== undefined) e.cleanFiles = clean;
    job.expire = e;
  } else {
    const r: RemoveOrphansJobOptions = {};
    const olderThan = v.optOlderThan(o.olderThan, `${where}.olderThan`);
    if (olderThan !== undefined) {
      // the CLI's safety rule, checked at load so the service does not fail every week at run time
      const ms = parseDurationMs(olderThan);
      if (ms === undefined) v.fail(`${where}.olderThan`, `must be a duration (e.g. 7d) in a service config: a fixed time would stop moving`);
      r.olderThan = olderThan;
    }
    const force = v.optBool(o.force, `${where}.force`);
    if (force !== undefined) r.force = force;
    if (r.olderThan !== undefined && !r.force && parseDurationMs(r.olderThan)! < 86_400_000) {
      v.fail(`${where}.olderThan`, `"${r.olderThan}" is shorter than 24h; set force: true only when no writer can be running`);
    }
    const pm = v.optString(o.prefixMismatch, `${where}.prefixMismatch`);
    if (pm !== undefined && !['error', 'ignore', 'delete'].includes(pm)) v.fail(`${where}.prefixMismatch`, `must be error, ignore or delete, got "${pm}"`);
    if (pm !== undefined) r.prefixMismatch = pm as 'error' | 'ignore' | 'delete';
    job.removeOrphans = r;
  }
  return job;
}

/** Sizes are read by `floe compact`'s own parser, loaded only when a config has one (it pulls in the engine). */
async function checkSizes(v: Validator, sizes: { at: string; text: string }[]): Promise<void> {
  if (sizes.length === 0) return;
  const { parseSize } = await import('../cli/commands/compact.js');
  for (const s of sizes) wrap(v, () => parseSize(s.text), s.at);
}

function wrap<T>(v: Validator, f: () => T, where?: string): T {
  try {
    return f();
  } catch (e) {
    if (isFloeError(e) && where === undefined) throw e;
    v.fail(where ?? '', e instanceof Error ? e.message : String(e));
  }
}

function checkTimezone(v: Validator, tz: string): void {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    v.fail('timezone', `"${tz}" is not an IANA time zone (e.g. UTC, Europe/Berlin)`);
  }
}

const hasScheme = (s: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(s);

function resolveLocation(location: string, baseDir: string): string {
  return hasScheme(location) ? location : path.resolve(baseDir, location);
}

/** `sql:relative.db` is read next to the config file, as a location would be. */
function resolveCatalog(spec: string, baseDir: string): string {
  const m = /^sql:(sqlite:(?:\/\/\/)?)?(.+)$/.exec(spec);
  if (!m || path.isAbsolute(m[2]!)) return spec;
  return `sql:${path.resolve(baseDir, m[2]!)}`;
}

function defaultName(ref: string): string {
  const last = ref.replace(/\/+$/, '').split('/').pop() ?? ref;
  return last.replace(/[^A-Za-z0-9._-]/g, '_') || 'table';
}

/** Small typed readers that report the offending key. */
class Validator {
  constructor(readonly source: string) {}

  fail(key: string, message: string): never {
    throw new FloeError('InvalidArgument', `${this.source}: ${key ? `${key}: ` : ''}${message}`, { context: { file: this.source, key } });
  }

  object(x: unknown, key: string): Record<string, unknown> {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) this.fail(key, `must be a mapping, got ${describe(x)}`);
    return x as Record<string, unknown>;
  }

  keys(o: Record<string, unknown>, key: string, allowed: readonly string[]): void {
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k)) this.fail(key ? `${key}.${k}` : k, `unknown key (expected one of: ${allowed.join(', ')})`);
    }
  }

  string(x: unknown, key: string): string {
    if (typeof x !== 'string' || x.trim() === '') this.fail(key, x === undefined ? 'is required' : `must be a non-empty string, got ${describe(x)}`);
    return x;
  }

  /** `numbersToo`: YAML reads `targetSize: 134217728` as a number; accept it as text. */
  optString(x: unknown, key: string, numbersToo = false): string | undefined {
    if (x === undefined) return undefined;
    if (numbersToo && typeof x === 'number') return String(x);
    return this.string(x, key);
  }

  optInt(x: unknown, key: string, min: number): number | undefined {
    if (x === undefined) return undefined;
    if (typeof x !== 'number' || !Number.isInteger(x) || x < min) this.fail(key, `must be an integer ≥ ${min}, got ${describe(x)}`);
    return x;
  }

  optBool(x: unknown, key: string): boolean | undefined {
    if (x === undefined) return undefined;
    if (typeof x !== 'boolean') this.fail(key, `must be true or false, got ${describe(x)}`);
    return x;
  }

  optDuration(x: unknown, key: string): number | undefined {
    if (x === undefined) return undefined;
    const ms = typeof x === 'string' ? parseDurationMs(x) : undefined;
    if (ms === undefined) this.fail(key, `must be a duration such as 30s, 5m, 1h, got ${describe(x)}`);
    return ms;
  }

  optOlderThan(x: unknown, key: string): string | undefined {
    if (x === undefined) return undefined;
    const s = this.string(x, key);
    try {
      parseCutoff(s, Date.now(), key);
    } catch (e) {
      this.fail(key, `"${s}" is not a duration (3d, 36h) or a time`);
    }
    return s;
  }

  stringList(x: unknown, key: string): string[] {
    if (!Array.isArray(x)) this.fail(key, `must be a list of strings, got ${describe(x)}`);
    return x.map((s, i) => this.string(s, `${key}[${i}]`));
  }

  /** Property maps: values may be written as YAML numbers or booleans; tables store them as text. */
  optStringMap(x: unknown, key: string): Record<string, string> | undefined {
    if (x === undefined) return undefined;
    const o = this.object(x, key);
    const out: Record<string, string> = {};
    for (const [k, val] of Object.entries(o)) {
      if (!['string', 'number', 'boolean'].includes(typeof val)) this.fail(`${key}.${k}`, `must be a string, number or boolean, got ${describe(val)}`);
      out[k] = String(val);
    }
    return out;
  }
}

function describe(x: unknown): string {
  if (x === null) return 'null';
  if (Array.isArray(x)) return 'a list';
  if (typeof x === 'object') return 'a mapping';
  if (typeof x === 'string') return `"${x}"`;
  return `${typeof x} ${String(x)}`;
}
