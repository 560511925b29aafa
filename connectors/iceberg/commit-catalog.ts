/**
 * Publishing through a catalog.
 *
 * SQL (Java JdbcCatalog / PyIceberg SqlCatalog): write `<NNNNN>-<uuid>.metadata.json` (create-if-absent),
 * then compare-and-swap the pointer: UPDATE iceberg_tables … WHERE metadata_location = <base>. One updated
 * row means we won; none means another writer moved the pointer first (a retryable conflict).
 *
 * REST: POST the change as requirements + updates (add-snapshot, set-snapshot-ref, remove-snapshots …);
 * 409 is a conflict, 5xx leaves the outcome unknown and must not trigger cleanup.
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../src/errors.js';
import { commitStateUnknown } from './commit-state.js';
import { parseJsonLossless, stringifyJsonLossless, toBigInt } from '../../src/util/json.js';
import type { TableIdentifier } from '../catalog/catalog.js';
import { describeSqlTarget, openSqlConnection, parseSqlTarget, type SqlConnection, type SqlTarget } from '../catalog/sql-connection.js';
import { metadataVersionOf, snapshotsOf, type RawMetadata } from './commit-metadata.js';
import type { CommitIO, TableOperations } from './commit-rewrite.js';
import { parseMetadata, parseMetadataBytes } from './metadata.js';

function metadataDirOf(meta: RawMetadata): string {
  const props = (meta.properties as Record<string, string> | undefined) ?? {};
  return (props['write.metadata.path'] ?? `${String(meta.location).replace(/\/$/, '')}/metadata`).replace(/\/$/, '');
}

/** Next metastore-style metadata file name: version + 1, zero-padded to five digits. */
export function nextMetastoreFile(meta: RawMetadata, baseLocation: string): string {
  const v = Math.max(0, metadataVersionOf(baseLocation)) + 1;
  return `${metadataDirOf(meta)}/${String(v).padStart(5, '0')}-${randomUUID()}.metadata.json`;
}

export class SqlTableOperations implements TableOperations {
  private readonly target: SqlTarget;
  private readonly description: string;

  /** `catalog`: what follows `sql:` — a SQLite path (or sqlite:/jdbc:sqlite: form) or a PostgreSQL URL. */
  constructor(
    private readonly io: CommitIO,
    catalog: string,
    private readonly id: TableIdentifier,
    private readonly catalogName: string | undefined,
  ) {
    this.target = parseSqlTarget(catalog);
    this.description = describeSqlTarget(this.target);
  }

  /** One short-lived connection per refresh / commit: nothing stays open between a command's steps. */
  private async open(readonly: boolean): Promise<SqlConnection> {
    try {
      return await openSqlConnection(this.target, { readonly });
    } catch (e) {
      if (e instanceof FloeError) throw e;
      throw new FloeError('NotFound', `cannot open SQL catalog ${this.description}: ${(e as Error).message}`, { cause: e });
    }
  }

  private where(): { sql: string; params: string[] } {
    const params = [this.id.namespace.join('.'), this.id.name];
    let sql = 'table_namespace = ? AND table_name = ?';
    if (this.catalogName !== undefined) {
      sql += ' AND catalog_name = ?';
      params.push(this.catalogName);
    }
    return { sql, params };
  }

  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const db = await this.open(true);
    let row: { metadata_location: string | null } | undefined;
    try {
      const w = this.where();
      [row] = await db.query<{ metadata_location: string | null }>(`SELECT metadata_location FROM iceberg_tables WHERE ${w.sql}`, w.params);
    } finally {
      await db.close();
    }
    if (!row?.metadata_location) throw new FloeError('NotFound', `table ${[...this.id.namespace, this.id.name].join('.')} not found in ${this.description}`);
    const md = parseMetadataBytes(await this.io.read(row.metadata_location), row.metadata_location);
    return { metadata: md.raw, location: row.metadata_location };
  }

  async commit(base: { metadata: RawMetadata; location: string }, next: RawMetadata): Promise<string> {
    // connect before writing the file: a refused login or an unreachable server is a plain failure, not "unknown"
    const db = await this.open(false);
    let changed: number;
    let target: string;
    try {
      target = nextMetastoreFile(next, base.location);
      await this.io.createNew(target, Buffer.from(stringifyJsonLossless(next, 2), 'utf8'));
      const w = this.where();
      try {
        changed = await db.execute(
          `UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? WHERE ${w.sql} AND metadata_location = ?`,
          [target, base.location, ...w.params, base.location],
        );
      } catch (e) {
        // the pointer may or may not have moved: leave the new file for orphan cleanup rather than guess
        throw commitStateUnknown(`SQL catalog ${this.description}: ${(e as Error).message}`, e);
      }
    } finally {
      await db.close();
    }
    if (changed !== 1) {
      await this.io.remove(target).catch(() => undefined);
      throw new FloeError('CommitConflict', `another writer moved ${this.id.name} in ${this.description} past ${base.location}`);
    }
    return target;
  }
}

export interface RestOpsOptions {
  uri: string;
  token?: string;
  warehouse?: string;
  fetch?: typeof fetch;
}

/** Requirements and updates that turn `base` into `next` (snapshots and refs; what floe's commits change). */
export function restChanges(base: RawMetadata, next: RawMetadata): { requirements: unknown[]; updates: unknown[] } {
  const idOf = (s: RawMetadata) => toBigInt(s['snapshot-id'], 'snapshot-id');
  const baseIds = new Set(snapshotsOf(base).map(idOf));
  const nextIds = new Set(snapshotsOf(next).map(idOf));
  const updates: unknown[] = [];
  const requirements: unknown[] = [];
  if (typeof base['table-uuid'] === 'string') requirements.push({ type: 'assert-table-uuid', uuid: base['table-uuid'] });
  for (const s of snapshotsOf(next)) if (!baseIds.has(idOf(s))) updates.push({ action: 'add-snapshot', snapshot: s });
  const removed = [...baseIds].filter((id) => !nextIds.has(id));
  if (removed.length) updates.push({ action: 'remove-snapshots', 'snapshot-ids': removed });
  const baseRefs = (base.refs as Record<string, RawMetadata> | undefined) ?? {};
  const nextRefs = (next.refs as Record<string, RawMetadata> | undefined) ?? {};
  for (const [name, ref] of Object.entries(nextRefs)) {
    const before = baseRefs[name];
    if (before && stringifyJsonLossless(before) === stringifyJsonLossless(ref)) continue;
    requirements.push({ type: 'assert-ref-snapshot-id', ref: name, 'snapshot-id': before ? before['snapshot-id'] : null });
    updates.push({ action: 'set-snapshot-ref', 'ref-name': name, ...ref });
  }
  for (const name of Object.keys(baseRefs)) if (!(name in nextRefs)) updates.push({ action: 'remove-snapshot-ref', 'ref-name': name });
  return { requirements, updates };
}

export class RestTableOperations implements TableOperations {
  private prefix: string | undefined;
  private readonly base: string;
  private readonly doFetch: typeof fetch;
  private readonly token: string | undefined;

  constructor(private readonly io: CommitIO, private readonly id: TableIdentifier, private readonly o: RestOpsOptions) {
    this.base = o.uri.replace(/\/+$/, '');
    this.doFetch = o.fetch ?? fetch;
    this.token = o.token ?? process.env.FLOE_REST_TOKEN;
  }

  private async call(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
    let res: Response;
    try {
      res = await this.doFetch(`${this.base}${path}`, {
        method,
        headers: {
          Accept: 'application/json',
          ...(body === undefined ? {} : { 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() }),
          ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
        },
        ...(body === undefined ? {} : { body: stringifyJsonLossless(body) }),
      });
    } catch (e) {
      throw new FloeError('Transient', `REST catalog ${this.base}: ${method} ${path} failed: ${(e as Error).message}`, { cause: e });
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? parseJsonLossless(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json, text };
  }

  private async tablePath(): Promise<string> {
    if (this.prefix === undefined) {
      const q = this.o.warehouse ? `?warehouse=${encodeURIComponent(this.o.warehouse)}` : '';
      const r = await this.call('GET', `/v1/config${q}`);
      const cfg = (r.json ?? {}) as { overrides?: Record<string, string>; defaults?: Record<string, string> };
      const p = cfg.overrides?.prefix ?? cfg.defaults?.prefix ?? '';
      this.prefix = p ? `/${p.replace(/^\/+|\/+$/g, '')}` : '';
    }
    return `/v1${this.prefix}/namespaces/${encodeURIComponent(this.id.namespace.join('\u001f'))}/tables/${encodeURIComponent(this.id.name)}`;
  }

  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const r = await this.call('GET', await this.tablePath());
    if (r.status !== 200) throw new FloeError(r.status === 404 ? 'NotFound' : 'Transient', `REST catalog ${this.base}: load table → HTTP ${r.status}: ${r.text.slice(0, 300)}`);
    const body = r.json as Record<string, unknown>;
    const md = parseMetadata(body.metadata, String(body['metadata-location']));
    return { metadata: md.raw, location: String(body['metadata-location']) };
  }

  async commit(base: { metadata: RawMetadata; location: string }, next: RawMetadata): Promise<string> {
    const { requirements, updates } = restChanges(base.metadata, next);
    const r = await this.call('POST', await this.tablePath(), { identifier: { namespace: this.id.namespace, name: this.id.name }, requirements, updates });
    if (r.status === 200) return String((r.json as Record<string, unknown>)['metadata-location']);
    if (r.status === 409) throw new FloeError('CommitConflict', `REST catalog ${this.base}: requirements failed: ${r.text.slice(0, 300)}`);
    if (r.status >= 500) {
      throw commitStateUnknown(`REST catalog ${this.base}: HTTP ${r.status}; the new snapshot may or may not be committed`);
    }
    throw new FloeError(r.status === 401 || r.status === 403 ? 'AccessDenied' : 'InvalidArgument', `REST catalog ${this.base}: commit rejected (HTTP ${r.status}): ${r.text.slice(0, 300)}`);
  }
}
