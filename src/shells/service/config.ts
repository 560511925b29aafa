/**
 * `floe serve` configuration (YAML or JSON): which tables, which jobs on what schedule, how many tables at
 * once, where state lives. Every value is checked on load and every error names its key, e.g.
 * `floe.yaml: tables[2].jobs.expire.olderThan: "5x" is neither a duration …`.
 */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { FloeError, isFloeError } from '../../../util/errors.js';
import { parseCutoff } from '../../../util/cutoff.js';
import { parseSizeBytes, tryParseDurationMs } from '../../../util/units.js';
import { parseSchedule, type Schedule } from './schedule.js';
import type { BudgetConfig, Limits } from './budget.js';
import { parseBudget, parseLimits } from './budget-config.js';
import { catalogKindsText, parseCatalogSpec } from '../../../connectors/catalog/catalog-spec.js';
import {
  JOB_KINDS,
  type CompactSpec,
  type ExpireSpec,
  type JobKind,
  type RemoveOrphansSpec,
  type TableAccess,
} from '../../orchestration/job-types.js';

export interface JobConfig {
  kind: JobKind;
  schedule: Schedule;
  dryRun: boolean;
  /** false: run without the table lease (`lease: false` in floe.yaml). */
  lease?: boolean;
  compact?: CompactSpec;
  expire?: ExpireSpec;
  removeOrphans?: RemoveOrphansSpec;
}

export interface TableConfig {
  /** Unique; names the state rows, log lines, metrics labels and `POST /run/<name>/<job>`. */
  name: string;
  /** Location, or `<ns>.<table>` when `access.catalog` is set. */
  table: string;
  access: TableAccess;
  properties: Record<string, string>;
  jobs: JobConfig[];
  /** `config` for a table listed under `tables:`, else the name of the `catalogs:` entry that found it. */
  source: string;
  /** Iceberg or Paimon when known (discovery knows; a listed location is detected when it runs). */
  format?: 'iceberg' | 'paimon';
  /** Parallel rewrite groups inside this table's compaction (the table's own concurrency). */
  concurrency?: number;
  /** Input bytes one compaction run may plan (a quota; deferred partitions wait for the next run). */
  maxBytesPerRun?: number;
  /** Wall-clock limit of one job; the job is then cancelled. */
  jobTimeoutMs?: number;
  /** What this table's runs may spend in the budget's window (`cap:`). */
  cap?: Limits;
}

/** One layer of job settings: a job, or `false` to switch it off. Layers stack: defaults < catalog < override < table. */
export type JobLayer = Partial<Record<JobKind, JobConfig | false>>;

/** Knobs a table can take from defaults, its catalog, an override or its own entry. */
export interface TableKnobs {
  properties: Record<string, string>;
  jobs: JobLayer;
  concurrency?: number;
  maxBytesPerRun?: number;
  jobTimeoutMs?: number;
  cap?: Limits;
}

export interface CatalogConfig extends TableKnobs {
  /** Prefix of the names of the tables it finds (`<name>.<ns>.<table>`). */
  name: string;
  /** A catalog kind of catalog-spec.ts (sql, rest, glue …), or a warehouse prefix. */
  kind: string;
  /** `sql:<path|url>` / `rest:<url>`, or the warehouse location (local path or s3://…). */
  target: string;
  access: TableAccess;
  /** Glob patterns over `<ns>.<table>` (catalogs) or the path below the warehouse (`db/orders`). */
  include: string[];
  exclude: string[];
  /** Warehouse: how many folder levels below the prefix tables may sit (default 3). */
  depth: number;
}

export interface OverrideConfig extends TableKnobs {
  /** Glob over table names (`lake.db.*`). */
  match: string;
  /** `false` keeps matching tables out of management. */
  enabled: boolean;
}

export interface HttpConfig {
  host: string;
  port?: number;
  /** From `http.token` or $FLOE_API_TOKEN; without one every request but the login page is refused. */
  token?: string;
  /** `true` lets GET requests through without the token (mutations always need it). */
  publicReads: boolean;
  /** Extra `host[:port]` values accepted in Host/Origin (a reverse proxy's name). */
  allowedHosts: string[];
  /** A client must have sent its request headers within this time, else its socket is closed (default 10 s). */
  headersTimeoutMs?: number;
  /** ... and its whole request within this time (default 30 s). */
  requestTimeoutMs?: number;
  /** Open sockets at most; further connections are closed at once (default 256). */
  maxConnections?: number;
}

export const HTTP_LIMIT_DEFAULTS = { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, maxConnections: 256 };

export interface WebhookConfig {
  url: string;
  retries: number;
  timeoutMs: number;
}

export interface ServiceConfig {
  /** The file it came from (for messages). */
  source: string;
  /** Service state database: a SQLite file path or a postgresql:// URL. */
  state: string;
  /** Legacy JSON state folder (one file per table); migrated into `state` on first start. */
  stateDir?: string;
  /** Tables maintained at the same time. */
  concurrency: number;
  timezone: string;
  backoff: { initialMs: number; maxMs: number };
  /** How long shutdown waits for running jobs. */
  shutdownTimeoutMs: number;
  /** Tables listed by hand. */
  tables: TableConfig[];
  defaults: TableKnobs;
  catalogs: CatalogConfig[];
  overrides: OverrideConfig[];
  /** How often catalogs are listed again (new tables picked up, dropped ones retired). */
  discoveryIntervalMs: number;
  http: HttpConfig;
  webhook?: WebhookConfig;
  /** What maintenance may spend per hour or day, and how due work is ranked against it. */
  budget?: BudgetConfig;
}

export const DEFAULTS = {
  concurrency: 1,
  timezone: 'UTC',
  backoffInitialMs: 60_000,
  backoffMaxMs: 6 * 3_600_000,
  shutdownTimeoutMs: 5 * 60_000,
  discoveryIntervalMs: 5 * 60_000,
  warehouseDepth: 3,
  stateFile: 'floe-state.db',
};

export async function loadServiceConfig(file: string): Promise<ServiceConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    throw new FloeError(
      'NotFound',
      `cannot read service config ${file}: ${e instanceof Error ? e.message : String(e)}`,
      { context: { file }, cause: e },
    );
  }
  let raw: unknown;
  try {
    // YAML is a superset of JSON, so one parser reads both
    raw = parseYaml(text);
  } catch (e) {
    throw new FloeError(
      'InvalidArgument',
      `${file}: not valid YAML/JSON: ${e instanceof Error ? e.message : String(e)}`,
      { context: { file }, cause: e },
    );
  }
  return parseServiceConfig(raw, file, path.dirname(path.resolve(file)));
}

/** Validates a parsed config; relative local paths resolve against `baseDir` (the config file's folder). */
export async function parseServiceConfig(
  raw: unknown,
  source: string,
  baseDir: string = process.cwd(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<ServiceConfig> {
  const v = new Validator(source);
  const top = v.object(raw, '');
  v.keys(top, '', TOP_KEYS);
  const timezone = v.optString(top.timezone, 'timezone') ?? DEFAULTS.timezone;
  checkTimezone(v, timezone);
  const { state, stateDir } = parseStateLocation(v, top, baseDir);
  const concurrency = v.optInt(top.concurrency, 'concurrency', 1) ?? DEFAULTS.concurrency;
  const backoff = parseBackoff(v, top.backoff);
  const shutdownTimeoutMs = v.optDuration(top.shutdownTimeout, 'shutdownTimeout') ?? DEFAULTS.shutdownTimeoutMs;
  const ctx: Ctx = { v, timezone, sizes: [], baseDir, env };
  const defaultsRaw = top.defaults === undefined ? {} : v.object(top.defaults, 'defaults');
  v.keys(defaultsRaw, 'defaults', KNOB_KEYS);
  const defaults = parseKnobs(ctx, defaultsRaw, 'defaults');
  const discoveryIntervalMs = parseDiscovery(v, top.discovery);
  const catalogs = parseCatalogs(ctx, top.catalogs);
  const overrides =
    top.overrides === undefined
      ? []
      : v.list(top.overrides, 'overrides').map((o, i) => parseOverride(ctx, o, `overrides[${i}]`));
  const tables = parseListedTables(ctx, top.tables, defaults, overrides, catalogs.length > 0);
  const http = parseHttp(v, top.http, env);
  const webhook = top.webhook === undefined ? undefined : parseWebhook(v, top.webhook);
  const budget = top.budget === undefined ? undefined : parseBudget(v, top.budget);
  await checkSizes(v, ctx.sizes);
  return {
    source,
    state,
    ...(stateDir !== undefined ? { stateDir } : {}),
    concurrency,
    timezone,
    backoff,
    shutdownTimeoutMs,
    tables,
    defaults,
    catalogs,
    overrides,
    discoveryIntervalMs,
    http,
    ...(webhook ? { webhook } : {}),
    ...(budget ? { budget } : {}),
  };
}

const TOP_KEYS = [
  'state',
  'stateDir',
  'concurrency',
  'timezone',
  'backoff',
  'shutdownTimeout',
  'defaults',
  'tables',
  'catalogs',
  'overrides',
  'discovery',
  'http',
  'webhook',
  'budget',
];

/** `state:` (SQLite file or PostgreSQL URL) and the legacy `stateDir:`; at least one is required. */
function parseStateLocation(
  v: Validator,
  top: Record<string, unknown>,
  baseDir: string,
): { state: string; stateDir?: string } {
  const stateText = v.optString(top.state, 'state');
  const stateDirText = v.optString(top.stateDir, 'stateDir');
  if (stateText === undefined && stateDirText === undefined)
    v.fail('state', 'is required: a SQLite file (floe-state.db) or a postgresql:// URL (or stateDir: a folder)');
  const stateDir = stateDirText === undefined ? undefined : path.resolve(baseDir, stateDirText);
  const state =
    stateText === undefined
      ? path.join(stateDir!, DEFAULTS.stateFile)
      : /^postgres(ql)?:\/\//i.test(stateText)
        ? stateText
        : path.resolve(baseDir, stateText.replace(/^sqlite:(\/\/)?/i, ''));
  return { state, ...(stateDir !== undefined ? { stateDir } : {}) };
}

function parseBackoff(v: Validator, raw: unknown): { initialMs: number; maxMs: number } {
  const o = raw === undefined ? {} : v.object(raw, 'backoff');
  v.keys(o, 'backoff', ['initial', 'max']);
  const initialMs = v.optDuration(o.initial, 'backoff.initial') ?? DEFAULTS.backoffInitialMs;
  const maxMs = v.optDuration(o.max, 'backoff.max') ?? Math.max(DEFAULTS.backoffMaxMs, initialMs);
  if (maxMs < initialMs) v.fail('backoff.max', `must not be shorter than backoff.initial`);
  return { initialMs, maxMs };
}

function parseDiscovery(v: Validator, raw: unknown): number {
  const o = raw === undefined ? {} : v.object(raw, 'discovery');
  v.keys(o, 'discovery', ['interval']);
  return v.optDuration(o.interval, 'discovery.interval') ?? DEFAULTS.discoveryIntervalMs;
}

function parseCatalogs(ctx: Ctx, raw: unknown): CatalogConfig[] {
  const { v } = ctx;
  const catalogs =
    raw === undefined ? [] : v.list(raw, 'catalogs').map((c, i) => parseCatalog(ctx, c, `catalogs[${i}]`));
  const names = new Set<string>();
  for (const [i, c] of catalogs.entries()) {
    if (names.has(c.name))
      v.fail(`catalogs[${i}].name`, `"${c.name}" is used by another catalog; names must be unique`);
    names.add(c.name);
  }
  return catalogs;
}

/** `tables:`: each entry checked, named uniquely and stacked onto defaults and matching overrides. */
function parseListedTables(
  ctx: Ctx,
  raw: unknown,
  defaults: TableKnobs,
  overrides: OverrideConfig[],
  haveCatalogs: boolean,
): TableConfig[] {
  const { v } = ctx;
  const list: unknown = raw === undefined ? [] : raw;
  if (!Array.isArray(list)) v.fail('tables', 'must be a list of tables');
  if ((list as unknown[]).length === 0 && !haveCatalogs)
    v.fail('tables', 'must be a non-empty list of tables (or give catalogs: to discover them)');
  const names = new Set<string>();
  return (list as unknown[])
    .map((t, i) => parseListedTable(ctx, t, `tables[${i}]`, names, defaults, overrides))
    .filter((t): t is TableConfig => t !== undefined);
}

/** A function: the key lists it joins are declared further down. */
const listedTableKeys = () => [
  'name',
  'location',
  'id',
  'catalog',
  'catalogName',
  'warehouse',
  'token',
  ...CATALOG_PROPERTY_KEYS,
  'locationMap',
  ...KNOB_KEYS,
];

function parseListedTable(
  ctx: Ctx,
  raw: unknown,
  where: string,
  names: Set<string>,
  defaults: TableKnobs,
  overrides: OverrideConfig[],
): TableConfig | undefined {
  const { v, baseDir } = ctx;
  const o = v.object(raw, where);
  v.keys(o, where, listedTableKeys());
  const location = v.optString(o.location, `${where}.location`);
  const id = v.optString(o.id, `${where}.id`);
  const catalog = v.optString(o.catalog, `${where}.catalog`);
  if ((location === undefined) === (id === undefined))
    v.fail(where, 'give exactly one of location (a table path or URL) or id (<ns>.<table> with catalog)');
  if (id !== undefined && catalog === undefined)
    v.fail(`${where}.catalog`, 'is required with id (sql:<sqlite-path|postgresql-url> or rest:<url>)');
  if (catalog !== undefined && catalogSpecProblem(catalog)) v.fail(`${where}.catalog`, catalogSpecProblem(catalog)!);
  if (location !== undefined && catalog !== undefined)
    v.fail(`${where}.catalog`, 'a catalog table is named by id, not location');
  const table = id ?? resolveLocation(location!, baseDir);
  const name = v.optString(o.name, `${where}.name`) ?? defaultName(id ?? location!);
  checkName(v, name, `${where}.name`);
  if (names.has(name)) v.fail(`${where}.name`, `"${name}" is used by another table; names must be unique`);
  names.add(name);
  const access: TableAccess = {
    ...parseAccess(ctx, o, where),
    ...(catalog ? { catalog: resolveCatalog(catalog, baseDir) } : {}),
  };
  paimonWarehouse(access, baseDir);
  const own = parseKnobs(ctx, o, where);
  const layers = [defaults, ...overrides.filter((ov) => globMatch(ov.match, name)), own];
  if (overrides.some((ov) => !ov.enabled && globMatch(ov.match, name))) return undefined;
  const resolved = resolveTable({ name, table, access, source: 'config' }, layers);
  if (resolved.jobs.length === 0)
    v.fail(`${where}.jobs`, 'no job is enabled for this table (and defaults.jobs gives none)');
  return resolved;
}

interface Ctx {
  v: Validator;
  timezone: string;
  sizes: { at: string; text: string }[];
  baseDir: string;
  env: NodeJS.ProcessEnv;
}

const KNOB_KEYS = ['properties', 'jobs', 'concurrency', 'maxBytesPerRun', 'jobTimeout', 'cap'];

function parseKnobs(ctx: Ctx, o: Record<string, unknown>, where: string): TableKnobs {
  const { v } = ctx;
  const at = (k: string) => (where ? `${where}.${k}` : k);
  const properties = v.optStringMap(o.properties, at('properties')) ?? {};
  const jobsRaw = o.jobs === undefined ? {} : v.object(o.jobs, at('jobs'));
  v.keys(jobsRaw, at('jobs'), JOB_KINDS);
  const jobs: JobLayer = {};
  for (const kind of JOB_KINDS) {
    const raw = jobsRaw[kind];
    if (raw === undefined) continue;
    jobs[kind] =
      raw === false ? false : (parseJob(v, kind, raw, `${at('jobs')}.${kind}`, ctx.timezone, ctx.sizes) ?? false);
  }
  const k: TableKnobs = { properties, jobs };
  const c = v.optInt(o.concurrency, at('concurrency'), 1);
  if (c !== undefined) k.concurrency = c;
  const budget = v.optString(o.maxBytesPerRun, at('maxBytesPerRun'), true);
  if (budget !== undefined) {
    const n = wrap(v, () => parseSizeBytes(budget, { bare: 'b' }), at('maxBytesPerRun'));
    if (n <= 0) v.fail(at('maxBytesPerRun'), 'must be more than 0 bytes');
    k.maxBytesPerRun = n;
  }
  const timeout = v.optDuration(o.jobTimeout, at('jobTimeout'));
  if (timeout !== undefined) k.jobTimeoutMs = timeout;
  if (o.cap !== undefined) k.cap = parseLimits(v, o.cap, at('cap'));
  return k;
}

/** Stacks knob layers (later wins) into a table's configuration. */
export function resolveTable(
  base: Pick<TableConfig, 'name' | 'table' | 'access' | 'source'> & { format?: 'iceberg' | 'paimon' },
  layers: TableKnobs[],
): TableConfig {
  const properties: Record<string, string> = {};
  const jobs: JobLayer = {};
  let concurrency: number | undefined;
  let maxBytesPerRun: number | undefined;
  let jobTimeoutMs: number | undefined;
  let cap: Limits | undefined;
  for (const l of layers) {
    cap = l.cap ?? cap;
    Object.assign(properties, l.properties);
    Object.assign(jobs, l.jobs);
    concurrency = l.concurrency ?? concurrency;
    maxBytesPerRun = l.maxBytesPerRun ?? maxBytesPerRun;
    jobTimeoutMs = l.jobTimeoutMs ?? jobTimeoutMs;
  }
  const list = JOB_KINDS.map((k) => jobs[k]).filter((j): j is JobConfig => !!j);
  return {
    ...base,
    properties,
    jobs: list,
    ...(concurrency !== undefined ? { concurrency } : {}),
    ...(maxBytesPerRun !== undefined ? { maxBytesPerRun } : {}),
    ...(jobTimeoutMs !== undefined ? { jobTimeoutMs } : {}),
    ...(cap !== undefined ? { cap } : {}),
  };
}

function parseAccess(ctx: Ctx, o: Record<string, unknown>, where: string): TableAccess {
  const { v } = ctx;
  const locationMap = o.locationMap === undefined ? undefined : v.stringList(o.locationMap, `${where}.locationMap`);
  for (const [k, m] of (locationMap ?? []).entries())
    if (!/^.+=.+$/.test(m)) v.fail(`${where}.locationMap[${k}]`, `"${m}" must be FROM=TO`);
  return {
    ...(o.catalogName !== undefined ? { catalogName: v.string(o.catalogName, `${where}.catalogName`) } : {}),
    ...(o.warehouse !== undefined && o.catalog !== undefined
      ? { warehouse: v.string(o.warehouse, `${where}.warehouse`) }
      : {}),
    ...(o.token !== undefined ? { token: v.string(o.token, `${where}.token`) } : {}),
    ...catalogCredentialsOf(ctx, o, where),
    ...(locationMap ? { locationMap } : {}),
  };
}

/** Catalog keys besides the spec: `credential` (or `credentialEnv`, the variable holding it), properties. */
const CATALOG_PROPERTY_KEYS = ['credential', 'credentialEnv', 'catalogProperties', 'catalogPropertiesFile'];

function catalogCredentialsOf(ctx: Ctx, o: Record<string, unknown>, where: string): Partial<TableAccess> {
  const { v } = ctx;
  const out: Partial<TableAccess> = {};
  if (o.credential !== undefined) out.credential = v.string(o.credential, `${where}.credential`);
  if (o.credentialEnv !== undefined) {
    const name = v.string(o.credentialEnv, `${where}.credentialEnv`);
    const value = ctx.env[name];
    if (!value) v.fail(`${where}.credentialEnv`, `environment variable ${name} is not set`);
    out.credential = value;
  }
  const props = v.optStringMap(o.catalogProperties, `${where}.catalogProperties`);
  if (props) out.catalogPropertyValues = props;
  if (o.catalogPropertiesFile !== undefined)
    out.catalogProperties = path.resolve(
      ctx.baseDir,
      v.string(o.catalogPropertiesFile, `${where}.catalogPropertiesFile`),
    );
  return out;
}

/** A catalog spec's problem, or undefined when floe can open it (catalog-spec.ts, one table of kinds). */
function catalogSpecProblem(spec: string): string | undefined {
  try {
    parseCatalogSpec(spec);
    return undefined;
  } catch (e) {
    const shown = spec.replace(/\?.*$/, '?…');
    return /expected/.test((e as Error).message)
      ? `"${shown}" must be ${catalogKindsText()}`
      : `"${shown}": ${(e as Error).message}`;
  }
}

function parseCatalog(ctx: Ctx, raw: unknown, where: string): CatalogConfig {
  const { v } = ctx;
  const o = v.object(raw, where);
  v.keys(o, where, [
    'name',
    'catalog',
    'warehouse',
    'catalogName',
    'token',
    ...CATALOG_PROPERTY_KEYS,
    'locationMap',
    'include',
    'exclude',
    'depth',
    ...KNOB_KEYS,
  ]);
  const name = v.string(o.name, `${where}.name`);
  checkName(v, name, `${where}.name`);
  const catalog = v.optString(o.catalog, `${where}.catalog`);
  const warehouse = v.optString(o.warehouse, `${where}.warehouse`);
  if (catalog === undefined && warehouse === undefined)
    v.fail(
      where,
      'give catalog (sql:… or rest:…) or warehouse (a folder or s3:// prefix holding Iceberg and Paimon tables)',
    );
  if (catalog !== undefined && catalogSpecProblem(catalog)) v.fail(`${where}.catalog`, catalogSpecProblem(catalog)!);
  const kind: CatalogConfig['kind'] = catalog === undefined ? 'warehouse' : parseCatalogSpec(catalog).kind;
  const access: TableAccess = {
    ...parseAccess(ctx, o, where),
    ...(catalog ? { catalog: resolveCatalog(catalog, ctx.baseDir) } : {}),
  };
  // with a REST catalog, `warehouse` is the catalog's warehouse name, passed to /v1/config
  if (catalog !== undefined && warehouse !== undefined) access.warehouse = warehouse;
  paimonWarehouse(access, ctx.baseDir);
  const target = catalog !== undefined ? access.catalog! : resolveLocation(warehouse!, ctx.baseDir);
  const include = o.include === undefined ? ['**'] : v.stringList(o.include, `${where}.include`);
  const exclude = o.exclude === undefined ? [] : v.stringList(o.exclude, `${where}.exclude`);
  const depth = v.optInt(o.depth, `${where}.depth`, 1) ?? DEFAULTS.warehouseDepth;
  return { name, kind, target, access, include, exclude, depth, ...parseKnobs(ctx, o, where) };
}

function parseOverride(ctx: Ctx, raw: unknown, where: string): OverrideConfig {
  const { v } = ctx;
  const o = v.object(raw, where);
  v.keys(o, where, ['match', 'enabled', ...KNOB_KEYS]);
  const match = v.string(o.match, `${where}.match`);
  const enabled = v.optBool(o.enabled, `${where}.enabled`) ?? true;
  return { match, enabled, ...parseKnobs(ctx, o, where) };
}

function parseHttp(v: Validator, raw: unknown, env: NodeJS.ProcessEnv): HttpConfig {
  const o = raw === undefined ? {} : v.object(raw, 'http');
  v.keys(o, 'http', [
    'host',
    'port',
    'token',
    'publicReads',
    'allowedHosts',
    'headersTimeout',
    'requestTimeout',
    'maxConnections',
  ]);
  const host = v.optString(o.host, 'http.host') ?? '127.0.0.1';
  const port = o.port === undefined ? undefined : v.optInt(o.port, 'http.port', 0);
  if (port !== undefined && port > 65535) v.fail('http.port', `must be a port number (0-65535), got ${port}`);
  const fromEnv = env.FLOE_API_TOKEN?.trim() || undefined;
  const token = fromEnv ?? v.optString(o.token, 'http.token');
  if (token !== undefined && token.length < 16)
    v.fail(
      fromEnv ? 'FLOE_API_TOKEN' : 'http.token',
      'must be at least 16 characters (use a random value: openssl rand -hex 32)',
    );
  const publicReads = v.optBool(o.publicReads, 'http.publicReads') ?? false;
  const allowedHosts =
    o.allowedHosts === undefined ? [] : v.stringList(o.allowedHosts, 'http.allowedHosts').map((h) => h.toLowerCase());
  const headersTimeoutMs = v.optDuration(o.headersTimeout, 'http.headersTimeout');
  const requestTimeoutMs = v.optDuration(o.requestTimeout, 'http.requestTimeout');
  const maxConnections =
    o.maxConnections === undefined ? undefined : v.optInt(o.maxConnections, 'http.maxConnections', 1);
  for (const [k, ms] of [
    ['http.headersTimeout', headersTimeoutMs],
    ['http.requestTimeout', requestTimeoutMs],
  ] as const)
    if (ms !== undefined && !(ms > 0)) v.fail(k, `must be a positive duration, got ${ms} ms`);
  if (headersTimeoutMs !== undefined && requestTimeoutMs !== undefined && requestTimeoutMs < headersTimeoutMs)
    v.fail('http.requestTimeout', 'must be at least http.headersTimeout');
  return {
    host,
    ...(headersTimeoutMs !== undefined ? { headersTimeoutMs } : {}),
    ...(requestTimeoutMs !== undefined ? { requestTimeoutMs } : {}),
    ...(maxConnections !== undefined ? { maxConnections } : {}),
    ...(port !== undefined ? { port } : {}),
    ...(token !== undefined ? { token } : {}),
    publicReads,
    allowedHosts,
  };
}

function parseWebhook(v: Validator, raw: unknown): WebhookConfig {
  const o = typeof raw === 'string' ? { url: raw } : v.object(raw, 'webhook');
  v.keys(o, 'webhook', ['url', 'retries', 'timeout']);
  const url = v.string(o.url, 'webhook.url');
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http');
  } catch {
    v.fail('webhook.url', `"${url}" is not an http(s) URL`);
  }
  return {
    url,
    retries: v.optInt(o.retries, 'webhook.retries', 0) ?? 3,
    timeoutMs: v.optDuration(o.timeout, 'webhook.timeout') ?? 10_000,
  };
}

function checkName(v: Validator, name: string, at: string): void {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || /^\.+$/.test(name))
    v.fail(at, `"${name}" may only hold letters, digits, ".", "_" and "-" and not be only dots (it names URLs)`);
}

/**
 * Glob over names: `*` any run of characters except `/`, `**` any run, `?` one character; the whole name
 * must match.
 */
export function globMatch(pattern: string, name: string): boolean {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*' && pattern[i + 1] === '*') {
      re += '.*';
      i++;
    } else if (ch === '*') re += '[^/]*';
    else if (ch === '?') re += '[^/]';
    else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`).test(name);
}

function parseJob(
  v: Validator,
  kind: JobKind,
  raw: unknown,
  where: string,
  timezone: string,
  sizes: { at: string; text: string }[],
): JobConfig | undefined {
  // shorthand: `expire: daily`
  const o = typeof raw === 'string' ? { schedule: raw } : v.object(raw, where);
  const common = ['schedule', 'enabled', 'dryRun', 'lease'];
  const specific: Record<JobKind, string[]> = {
    compact: [
      'strategy',
      'targetSize',
      'where',
      'partialProgress',
      'maxConcurrentGroups',
      'parallelism',
      'full',
      'leaveNewestCommits',
      'leaveNewestWithin',
    ],
    expire: ['olderThan', 'retainLast', 'cleanFiles'],
    'remove-orphans': ['olderThan', 'force', 'prefixMismatch'],
  };
  v.keys(o, where, [...common, ...specific[kind]]);
  if (v.optBool(o.enabled, `${where}.enabled`) === false) return undefined;
  const schedule = wrap(v, () =>
    parseSchedule(v.string(o.schedule, `${where}.schedule`), `${v.source}: ${where}.schedule`, timezone),
  );
  const job: JobConfig = { kind, schedule, dryRun: v.optBool(o.dryRun, `${where}.dryRun`) ?? false };
  if (v.optBool(o.lease, `${where}.lease`) === false) job.lease = false;
  if (kind === 'compact') {
    const strategy = v.optString(o.strategy, `${where}.strategy`);
    if (strategy !== undefined && strategy !== 'tiered' && strategy !== 'binpack')
      v.fail(`${where}.strategy`, `must be tiered or binpack, got "${strategy}"`);
    const targetSize = v.optString(o.targetSize, `${where}.targetSize`, true);
    if (targetSize !== undefined) sizes.push({ at: `${where}.targetSize`, text: targetSize });
    const c: CompactSpec = {};
    if (strategy) c.strategy = strategy as 'tiered' | 'binpack';
    if (targetSize !== undefined) c.targetSize = targetSize;
    const w = v.optString(o.where, `${where}.where`);
    if (w !== undefined) c.where = w;
    const pp = v.optBool(o.partialProgress, `${where}.partialProgress`);
    if (pp !== undefined) c.partialProgress = pp;
    const g = v.optInt(o.maxConcurrentGroups, `${where}.maxConcurrentGroups`, 1);
    if (g !== undefined) c.maxConcurrentGroups = g;
    const par = v.optInt(o.parallelism, `${where}.parallelism`, 1);
    if (par !== undefined) c.parallelism = par;
    const full = v.optBool(o.full, `${where}.full`);
    if (full !== undefined) c.full = full;
    const newest = v.optInt(o.leaveNewestCommits, `${where}.leaveNewestCommits`, 1);
    if (newest !== undefined) c.leaveNewestCommits = newest;
    const within = v.optString(o.leaveNewestWithin, `${where}.leaveNewestWithin`);
    if (within !== undefined) {
      if (tryParseDurationMs(within) === undefined)
        v.fail(`${where}.leaveNewestWithin`, `must be a duration (e.g. 15m)`);
      c.leaveNewestWithin = within;
    }
    job.compact = c;
  } else if (kind === 'expire') {
    const e: ExpireSpec = {};
    const olderThan = v.optOlderThan(o.olderThan, `${where}.olderThan`);
    if (olderThan !== undefined) e.olderThan = olderThan;
    const keep = v.optInt(o.retainLast, `${where}.retainLast`, 1);
    if (keep !== undefined) e.retainLast = keep;
    const clean = v.optBool(o.cleanFiles, `${where}.cleanFiles`);
    if (clean !== undefined) e.cleanFiles = clean;
    job.expire = e;
  } else {
    const r: RemoveOrphansSpec = {};
    const olderThan = v.optOlderThan(o.olderThan, `${where}.olderThan`);
    if (olderThan !== undefined) {
      // the CLI's safety rule, checked at load so the service does not fail every week at run time
      const ms = tryParseDurationMs(olderThan);
      if (ms === undefined)
        v.fail(
          `${where}.olderThan`,
          `must be a duration (e.g. 7d) in a service config: a fixed time would stop moving`,
        );
      r.olderThan = olderThan;
    }
    const force = v.optBool(o.force, `${where}.force`);
    if (force !== undefined) r.force = force;
    if (r.olderThan !== undefined && !r.force && tryParseDurationMs(r.olderThan)! < 86_400_000) {
      v.fail(
        `${where}.olderThan`,
        `"${r.olderThan}" is shorter than 24h; set force: true only when no writer can be running`,
      );
    }
    const pm = v.optString(o.prefixMismatch, `${where}.prefixMismatch`);
    if (pm !== undefined && !['error', 'ignore', 'delete'].includes(pm))
      v.fail(`${where}.prefixMismatch`, `must be error, ignore or delete, got "${pm}"`);
    if (pm !== undefined) r.prefixMismatch = pm as 'error' | 'ignore' | 'delete';
    job.removeOrphans = r;
  }
  return job;
}

/** Sizes are read by `floe compact`'s own parser, loaded only when a config has one (it pulls in the engine). */
async function checkSizes(v: Validator, sizes: { at: string; text: string }[]): Promise<void> {
  if (sizes.length === 0) return;
  const { parseSize } = await import('../../../util/units.js');
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
  const m = /^(sql|paimon-jdbc):(sqlite:(?:\/\/\/)?)?(.+)$/.exec(spec);
  if (!m || path.isAbsolute(m[3]!) || /^(jdbc:)?postgres(ql)?(\+[a-z0-9]+)?:\/\//i.test(m[3]!)) return spec;
  return `${m[1]}:${path.resolve(baseDir, m[3]!)}`;
}

/** Iceberg `sql:` / `rest:` catalogs, and Paimon's JDBC catalog (connectors/catalog/paimon-jdbc.ts). */

/** A Paimon JDBC catalog's `warehouse` is the Java catalog's warehouse location: relative to the config file. */
function paimonWarehouse(access: TableAccess, baseDir: string): void {
  if (access.catalog?.startsWith('paimon-jdbc:') && access.warehouse !== undefined)
    access.warehouse = resolveLocation(access.warehouse, baseDir);
}

function defaultName(ref: string): string {
  const last = ref.replace(/\/+$/, '').split('/').pop() ?? ref;
  return last.replace(/[^A-Za-z0-9._-]/g, '_') || 'table';
}

/** Small typed readers that report the offending key. */
export class Validator {
  constructor(readonly source: string) {}

  fail(key: string, message: string): never {
    throw new FloeError('InvalidArgument', `${this.source}: ${key ? `${key}: ` : ''}${message}`, {
      context: { file: this.source, key },
    });
  }

  object(x: unknown, key: string): Record<string, unknown> {
    if (x === null || typeof x !== 'object' || Array.isArray(x))
      this.fail(key, `must be a mapping, got ${describe(x)}`);
    return x as Record<string, unknown>;
  }

  keys(o: Record<string, unknown>, key: string, allowed: readonly string[]): void {
    for (const k of Object.keys(o)) {
      if (!allowed.includes(k))
        this.fail(key ? `${key}.${k}` : k, `unknown key (expected one of: ${allowed.join(', ')})`);
    }
  }

  string(x: unknown, key: string): string {
    if (typeof x !== 'string' || x.trim() === '')
      this.fail(key, x === undefined ? 'is required' : `must be a non-empty string, got ${describe(x)}`);
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
    if (typeof x !== 'number' || !Number.isInteger(x) || x < min)
      this.fail(key, `must be an integer ≥ ${min}, got ${describe(x)}`);
    return x;
  }

  optBool(x: unknown, key: string): boolean | undefined {
    if (x === undefined) return undefined;
    if (typeof x !== 'boolean') this.fail(key, `must be true or false, got ${describe(x)}`);
    return x;
  }

  optDuration(x: unknown, key: string): number | undefined {
    if (x === undefined) return undefined;
    const ms = typeof x === 'string' ? tryParseDurationMs(x) : undefined;
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

  list(x: unknown, key: string): unknown[] {
    if (!Array.isArray(x)) this.fail(key, `must be a list, got ${describe(x)}`);
    return x;
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
      if (!['string', 'number', 'boolean'].includes(typeof val))
        this.fail(`${key}.${k}`, `must be a string, number or boolean, got ${describe(val)}`);
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
