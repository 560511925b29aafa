/**
 * Which tables `floe serve` maintains: the ones listed under `tables:`, plus every table the `catalogs:`
 * entries find — an Iceberg SQL or REST catalog, or a warehouse prefix (local folder or s3://) holding
 * filesystem Iceberg tables and Paimon tables — filtered by include/exclude globs. Each discovered table
 * gets the defaults, its catalog's settings and any matching `overrides:` entry, in that order.
 *
 * Listing runs at start and every `discovery.interval`: new tables are picked up, tables gone from their
 * catalog are retired. A catalog that cannot be listed keeps the tables it had (an outage must not look
 * like a mass drop). A table whose own properties say `self-optimizing.enabled=false` (Amoro's switch;
 * floe reads the same key from Paimon table options) is opted out and left alone.
 */
import { FloeError } from '../../../util/errors.js';
import { identifierToString } from '../../../connectors/catalog/catalog.js';
import { isPaimonCatalogSpec } from '../../../connectors/catalog/paimon-catalog.js';
import { globMatch, resolveTable, type CatalogConfig, type TableConfig, type TableKnobs } from './config.js';
import type { MaintenanceService } from './service.js';

export interface DiscoveredRef {
  /** What include/exclude match: `ns.table` for catalogs, the path below the warehouse (`db/orders`) for warehouses. */
  rel: string;
  /** What the job opens: `ns.table` with the catalog, or the table location. */
  ref: string;
  format: 'iceberg' | 'paimon';
}

export interface RefreshResult {
  tables: string[];
  optedOut: string[];
  errors: { catalog: string; error: string }[];
}

/** Lists one catalog or warehouse. */
export async function listCatalog(c: CatalogConfig): Promise<DiscoveredRef[]> {
  if (isPaimonCatalogSpec(c.target)) {
    // Paimon's JDBC or REST catalog: its tables are Paimon tables
    const { openPaimonCatalogOf } = await import('../../app/paimon-catalog.js');
    const catalog = await openPaimonCatalogOf({ ...c.access, catalog: c.target });
    try {
      const ids = await catalog.listTables();
      return ids.map((id) => ({ rel: identifierToString(id), ref: identifierToString(id), format: 'paimon' }));
    } finally {
      await catalog.close();
    }
  }
  if (c.kind !== 'warehouse') {
    // every catalog kind lists through the code that loads its tables, with the same properties
    const { listCatalogTables } = await import('../../../connectors/catalog/list-tables.js');
    const { catalogOptionsOf } = await import('../../../connectors/iceberg/open-for-write.js');
    const ids = await listCatalogTables(c.access.catalog ?? c.target, catalogOptionsOf(c.access));
    return ids.map((id) => ({ rel: identifierToString(id), ref: identifierToString(id), format: 'iceberg' }));
  }
  return listWarehouse(c.target, c.depth, c.access.locationMap);
}

/**
 * Table roots under a warehouse prefix: a folder with `metadata/*.metadata.json` (Iceberg) or
 * `schema/schema-<n>` (Paimon), at most `depth` folders below the prefix.
 */
export async function listWarehouse(
  location: string,
  depth: number,
  locationMap: string[] = [],
): Promise<DiscoveredRef[]> {
  const { fileIOFromEnv: paimonFileIO } = await import('../../app/open-table.js');
  const files = paimonFileIO(locationMap);
  try {
    const root = location.replace(/\/+$/, '');
    const { store, key } = files.resolve(`${root}/`);
    const found = new Map<string, 'iceberg' | 'paimon'>();
    const prefix = key.endsWith('/') || key === '' ? key : `${key}/`;
    for await (const entry of store.list(prefix)) {
      const rel = entry.key.slice(prefix.length);
      const m = /^(.+?)\/(metadata\/[^/]+\.metadata\.json(\.gz)?|schema\/schema-\d+)$/.exec(rel);
      if (!m) continue;
      const dir = m[1]!;
      if (dir.split('/').length > depth) continue;
      // a Paimon table can carry an Iceberg-compatible metadata folder: Paimon wins, it is the writer
      const format = m[2]!.startsWith('schema/') ? 'paimon' : 'iceberg';
      if (found.get(dir) !== 'paimon') found.set(dir, format);
    }
    // tables nested inside another table's folder are its data, not tables
    const dirs = [...found.keys()].sort();
    return dirs
      .filter((d) => !dirs.some((o) => o !== d && d.startsWith(`${o}/`)))
      .map((d) => ({ rel: d, ref: `${root}/${d}`, format: found.get(d)! }));
  } finally {
    files.destroy();
  }
}

/** A table's own properties (Iceberg table properties, Paimon table options). */
export async function readTableProperties(
  cfg: Pick<TableConfig, 'table' | 'access'>,
  format?: 'iceberg' | 'paimon',
): Promise<{ format: 'iceberg' | 'paimon'; properties: Record<string, string> }> {
  if (isPaimonCatalogSpec(cfg.access.catalog)) {
    const { withPaimonCatalogTable } = await import('../../app/paimon-catalog.js');
    return withPaimonCatalogTable(cfg.table, { ...cfg.access, catalog: cfg.access.catalog }, (t) =>
      readTableProperties({ table: t.location, access: { ...cfg.access, catalog: undefined } }, 'paimon'),
    );
  }
  if (!cfg.access.catalog) {
    const { detectTableFormat } = await import('../../app/table-format.js');
    const { fileIOFromEnv: paimonFileIO } = await import('../../app/open-table.js');
    const files = paimonFileIO(cfg.access.locationMap);
    try {
      if (format === 'paimon' || (format === undefined && (await detectTableFormat(cfg.table, files)) === 'paimon')) {
        const { openPaimonTable } = await import('../../../connectors/paimon/table.js');
        const t = await openPaimonTable(cfg.table, { fileIO: files });
        return { format: 'paimon', properties: { ...t.schema.options } };
      }
    } finally {
      files.destroy();
    }
  }
  const { openTableForRead: openTableForCli } = await import('../../app/open-table.js');
  const t = await openTableForCli(cfg.table, cfg.access);
  return { format: 'iceberg', properties: { ...t.metadata.properties } };
}

/** Why a table opted out of maintenance, or undefined. */
export function optOutReason(properties: Record<string, string>): string | undefined {
  const v = properties['self-optimizing.enabled'];
  if (v !== undefined && v.trim().toLowerCase() === 'false') return 'table property self-optimizing.enabled=false';
  return undefined;
}

export function discoveredName(catalog: string, rel: string): string {
  return `${catalog}.${rel.replace(/\//g, '.')}`.replace(/[^A-Za-z0-9._-]/g, '_');
}

export class Discovery {
  /** Last good listing per catalog, kept when a later listing fails. */
  private readonly lastListing = new Map<string, DiscoveredRef[]>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<RefreshResult> | undefined;

  constructor(
    private readonly service: MaintenanceService,
    private readonly list: (c: CatalogConfig) => Promise<DiscoveredRef[]> = listCatalog,
    private readonly properties: typeof readTableProperties = readTableProperties,
  ) {}

  /** Lists everything once and hands the result to the scheduler. Concurrent calls share one pass. */
  refresh(): Promise<RefreshResult> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  start(): void {
    const ms = this.service.config.discoveryIntervalMs;
    this.timer = setInterval(() => {
      this.refresh().catch((e: unknown) =>
        this.log('error', 'discovery-failed', { error: e instanceof Error ? e.message : String(e) }),
      );
    }, ms);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private log(level: 'info' | 'warn' | 'error', event: string, fields: Record<string, unknown>): void {
    this.service.logEvent(level, event, fields);
  }

  private async pass(): Promise<RefreshResult> {
    const cfg = this.service.config;
    const errors: RefreshResult['errors'] = [];
    const candidates: TableConfig[] = [...cfg.tables];
    const names = new Set(candidates.map((t) => t.name));
    for (const c of cfg.catalogs) {
      let refs: DiscoveredRef[];
      try {
        refs = await this.list(c);
        this.lastListing.set(c.name, refs);
      } catch (e) {
        const error = e instanceof Error ? e.message : String(e);
        errors.push({ catalog: c.name, error });
        this.log('warn', 'discovery-list-failed', {
          catalog: c.name,
          error,
          keeping: this.lastListing.get(c.name)?.length ?? 0,
        });
        refs = this.lastListing.get(c.name) ?? [];
      }
      for (const r of refs) {
        if (!c.include.some((p) => globMatch(p, r.rel)) || c.exclude.some((p) => globMatch(p, r.rel))) continue;
        const name = discoveredName(c.name, r.rel);
        if (names.has(name)) {
          this.log('warn', 'discovery-name-clash', {
            catalog: c.name,
            table: r.ref,
            name,
            reason: 'another table already has this name; this one is skipped',
          });
          continue;
        }
        const overrides = cfg.overrides.filter((o) => globMatch(o.match, name));
        if (overrides.some((o) => !o.enabled)) continue;
        const layers: TableKnobs[] = [cfg.defaults, c, ...overrides];
        const t = resolveTable({ name, table: r.ref, access: c.access, source: c.name, format: r.format }, layers);
        if (t.jobs.length === 0) continue;
        names.add(name);
        candidates.push(t);
      }
    }
    // the tables' own opt-out switch
    const keep: TableConfig[] = [];
    const optedOut = new Map<string, { location: string; source: string; reason: string }>();
    for (const t of candidates) {
      try {
        const p = await this.properties(t, t.format);
        const reason = optOutReason(p.properties);
        if (reason) optedOut.set(t.name, { location: t.table, source: t.source, reason });
        else keep.push({ ...t, format: p.format });
      } catch (e) {
        // an unreadable table stays managed: its jobs fail visibly, which is what an operator needs to see
        keep.push(t);
        if (!(e instanceof FloeError) || e.kind !== 'NotFound')
          this.log('warn', 'discovery-read-failed', {
            table: t.name,
            error: e instanceof Error ? e.message : String(e),
          });
      }
    }
    await this.service.syncTables(keep, optedOut);
    return { tables: keep.map((t) => t.name), optedOut: [...optedOut.keys()], errors };
  }
}
