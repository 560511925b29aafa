/**
 * Publishing through a catalog.
 *
 * SQL (Java JdbcCatalog / PyIceberg SqlCatalog): write `<NNNNN>-<uuid>.metadata.json` (create-if-absent),
 * then compare-and-swap the pointer: UPDATE iceberg_tables … WHERE metadata_location = <base>. One updated
 * row means we won; none means another writer moved the pointer first (a retryable conflict).
 *
 * REST: POST the transaction's requirements + updates (add-snapshot, set-snapshot-ref, remove-snapshots …);
 * 409 is a conflict; after a 5xx or a lost response the table is reloaded and the commit counts only when
 * our snapshot (id, manifest list, floe.commit-id) is there — otherwise its state is unknown and nothing is
 * cleaned up. SQL: a lost answer to the UPDATE is settled by re-reading the pointer (afterLostUpdate).
 */
import { randomUUID } from 'node:crypto';
import { FloeError } from '../../util/errors.js';
import { commitStateUnknown } from '../commit-state.js';
import { faultPoint } from '../../util/fault-points.js';
import { createVerified } from '../storage/create-verified.js';
import { COMMIT_ID_PROPERTY } from './commit-id.js';
import { stringifyJsonLossless, toBigInt } from '../../util/json.js';
import type { TableIdentifier } from '../catalog/catalog.js';
import type { RestClient } from '../catalog/rest-client.js';
import { restClientFor, tablePath } from '../catalog/rest.js';
import { resolveCatalogProperties } from '../catalog/catalog-spec.js';
import {
  describeSqlTarget,
  openSqlConnection,
  parseSqlTarget,
  type SqlConnection,
  type SqlTarget,
} from '../catalog/sql-connection.js';
import { metadataVersionOf, snapshotsOf, type RawMetadata } from './commit-metadata.js';
import type { CommitIO, TableChange, TableOperations } from './transaction.js';
import { parseMetadata, parseMetadataBytes } from './metadata.js';
import { metadataDirOf } from './write-locations.js';

/** The raw document's metadata directory, by the rule every Iceberg commit uses (write-locations.ts). */
function rawMetadataDirOf(meta: RawMetadata): string {
  const properties = (meta.properties as Record<string, string> | undefined) ?? {};
  return metadataDirOf({ location: String(meta.location), properties });
}

/** Next metastore-style metadata file name: version + 1, zero-padded to five digits. */
export function nextMetastoreFile(meta: RawMetadata, baseLocation: string): string {
  const v = Math.max(0, metadataVersionOf(baseLocation)) + 1;
  return `${rawMetadataDirOf(meta)}/${String(v).padStart(5, '0')}-${randomUUID()}.metadata.json`;
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
      throw new FloeError('NotFound', `cannot open SQL catalog ${this.description}: ${(e as Error).message}`, {
        cause: e,
      });
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

  private async pointer(): Promise<string | undefined> {
    const db = await this.open(true);
    try {
      const w = this.where();
      const [row] = await db.query<{ metadata_location: string | null }>(
        `SELECT metadata_location FROM iceberg_tables WHERE ${w.sql}`,
        w.params,
      );
      return row?.metadata_location ?? undefined;
    } finally {
      await db.close();
    }
  }

  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const location = await this.pointer();
    if (!location)
      throw new FloeError(
        'NotFound',
        `table ${[...this.id.namespace, this.id.name].join('.')} not found in ${this.description}`,
      );
    const md = parseMetadataBytes(await this.io.read(location), location);
    return { metadata: md.raw, location };
  }

  async commit(base: { metadata: RawMetadata; location: string }, next: RawMetadata): Promise<string> {
    // connect before writing the file: a refused login or an unreachable server is a plain failure, not "unknown"
    const db = await this.open(false);
    let changed: number;
    let target: string;
    try {
      target = await writeNextMetadata(this.io, base.location, next);
      faultPoint('iceberg.commit.before-publish');
      const w = this.where();
      try {
        changed = await db.execute(
          `UPDATE iceberg_tables SET metadata_location = ?, previous_metadata_location = ? WHERE ${w.sql} AND metadata_location = ?`,
          [target, base.location, ...w.params, base.location],
        );
      } catch (e) {
        await db.close().catch(() => undefined);
        if (db.dialect === 'sqlite' && isSqliteBusy(e)) await this.afterBusy(target, e);
        return await this.afterLostUpdate(base.location, target, e, db.dialect);
      }
    } finally {
      await db.close().catch(() => undefined);
    }
    if (changed !== 1) {
      await this.io.remove(target).catch(() => undefined);
      throw new FloeError(
        'CommitConflict',
        `another writer moved ${this.id.name} in ${this.description} past ${base.location}`,
      );
    }
    faultPoint('iceberg.commit.after-publish');
    return target;
  }

  /**
   * SQLite gave up waiting for the catalog file's lock (SQLITE_BUSY after the busy timeout): another
   * connection held it all that time — a reader scanning through a Java JdbcCatalog does (docs/live-writers.md).
   * A busy statement never ran or was rolled back, so nothing was committed: a retryable conflict, and the
   * commit loop waits (commit.retry.*) holding no lock, refreshes and tries again instead of failing the run.
   */
  private async afterBusy(target: string, cause: unknown): Promise<never> {
    await this.io.remove(target).catch(() => undefined);
    throw new FloeError(
      'CommitConflict',
      `SQL catalog ${this.description} stayed locked by another connection (${(cause as Error).message}); nothing was committed`,
      { cause },
    );
  }

  /**
   * The UPDATE failed without an answer we can trust (a dropped connection may have committed it): settled
   * by settleLostSwap; still at `base` means not applied on SQLite (a statement either commits or rolls back
   * before returning), unknown on PostgreSQL (the server may still run it).
   */
  private afterLostUpdate(
    base: string,
    target: string,
    cause: unknown,
    dialect: SqlConnection['dialect'],
  ): Promise<string> {
    return settleLostSwap({
      io: this.io,
      what: `SQL catalog ${this.description}: ${(cause as Error).message}`,
      table: this.id.name,
      catalog: this.description,
      base,
      target,
      cause,
      pointer: () => this.pointer(),
      unappliedAtBase: dialect === 'sqlite',
    });
  }
}

/** better-sqlite3's error for a lock it could not get within the busy timeout (SQLITE_BUSY and its extended codes). */
function isSqliteBusy(e: unknown): boolean {
  return typeof (e as { code?: unknown })?.code === 'string' && (e as { code: string }).code.startsWith('SQLITE_BUSY');
}

/** Writes `next` as the next metastore-style metadata file after `baseLocation`; returns its location. */
export async function writeNextMetadata(io: CommitIO, baseLocation: string, next: RawMetadata): Promise<string> {
  const target = nextMetastoreFile(next, baseLocation);
  const bytes = Buffer.from(stringifyJsonLossless(next, 2), 'utf8');
  // a uniquely named file: an undecidable create is a plain failure here, the pointer has not moved
  await createVerified(
    { location: target, create: () => io.createNew(target, bytes), read: () => io.read(target) },
    bytes,
  );
  return target;
}

export interface LostSwap {
  io: CommitIO;
  /** What failed, naming the catalog (the error messages start with it). */
  what: string;
  table: string;
  catalog: string;
  base: string;
  target: string;
  cause: unknown;
  /** The catalog's pointer as it stands now; undefined when the table is gone. */
  pointer: () => Promise<string | undefined>;
  /** The pointer still at `base` proves the swap was not applied (and will not be). */
  unappliedAtBase: boolean;
}

/**
 * A pointer swap (SQL UPDATE, Glue UpdateTable) failed without an answer we can trust. Decide from the
 * catalog as it stands: the pointer names our file → committed; the chain of metadata files after `base`
 * (the current file's metadata-log) starts with ours → committed and built upon; with another file → a
 * conflict; still at `base` → not applied when the caller knows so, else unknown; anything unreadable →
 * unknown. Our metadata file is removed only when it is certainly not committed.
 */
export async function settleLostSwap(l: LostSwap): Promise<string> {
  const { what, base, target, cause } = l;
  let pointer: string | undefined;
  try {
    pointer = await l.pointer();
  } catch (e) {
    throw commitStateUnknown(`${what}; re-reading the pointer failed too (${(e as Error).message})`, cause);
  }
  if (pointer === target) return target;
  if (pointer === base) {
    if (l.unappliedAtBase) {
      await l.io.remove(target).catch(() => undefined);
      throw new FloeError('Transient', `${what} (the pointer still names ${base}: nothing was committed)`, {
        cause,
        retryable: false,
      });
    }
    throw commitStateUnknown(
      `${what}; the pointer still names ${base} but the catalog may yet apply the update`,
      cause,
    );
  }
  if (pointer === undefined) throw commitStateUnknown(`${what}; the table's entry is gone`, cause);
  let chain: string[];
  try {
    const md = parseMetadataBytes(await l.io.read(pointer), pointer);
    const log = ((md.raw['metadata-log'] as { 'metadata-file'?: unknown }[] | undefined) ?? []).map((e) =>
      String(e['metadata-file']),
    );
    chain = [...log, pointer];
  } catch (e) {
    throw commitStateUnknown(`${what}; cannot read the current metadata ${pointer} (${(e as Error).message})`, cause);
  }
  const at = chain.lastIndexOf(base);
  if (at < 0) throw commitStateUnknown(`${what}; ${base} is no longer in the metadata log of ${pointer}`, cause);
  if (chain[at + 1] === target) return target;
  await l.io.remove(target).catch(() => undefined);
  throw new FloeError('CommitConflict', `another writer moved ${l.table} in ${l.catalog} past ${base}`, { cause });
}

export interface RestOpsOptions {
  uri: string;
  /** The catalog's properties (catalog-spec.ts resolveCatalogProperties); default: `token` and the environment. */
  props?: Record<string, string>;
  token?: string;
  fetch?: typeof fetch;
}

/**
 * Requirements and updates that turn `base` into `next` (snapshots and refs; what floe's commits change), for
 * a commit whose caller names only the next document (floe's own actions send their TableChange instead).
 */
export function restChanges(base: RawMetadata, next: RawMetadata): { requirements: unknown[]; updates: unknown[] } {
  const idOf = (s: RawMetadata) => toBigInt(s['snapshot-id'], 'snapshot-id');
  const baseIds = new Set(snapshotsOf(base).map(idOf));
  const nextIds = new Set(snapshotsOf(next).map(idOf));
  const updates: unknown[] = [];
  const requirements: unknown[] = [];
  if (typeof base['table-uuid'] === 'string')
    requirements.push({ type: 'assert-table-uuid', uuid: base['table-uuid'] });
  for (const s of snapshotsOf(next)) if (!baseIds.has(idOf(s))) updates.push({ action: 'add-snapshot', snapshot: s });
  const removed = [...baseIds].filter((id) => !nextIds.has(id));
  if (removed.length) updates.push({ action: 'remove-snapshots', 'snapshot-ids': removed });
  const baseRefs = (base.refs as Record<string, RawMetadata> | undefined) ?? {};
  const nextRefs = (next.refs as Record<string, RawMetadata> | undefined) ?? {};
  for (const [name, ref] of Object.entries(nextRefs)) {
    const before = baseRefs[name];
    if (before && stringifyJsonLossless(before) === stringifyJsonLossless(ref)) continue;
    requirements.push({
      type: 'assert-ref-snapshot-id',
      ref: name,
      'snapshot-id': before ? before['snapshot-id'] : null,
    });
    updates.push({ action: 'set-snapshot-ref', 'ref-name': name, ...ref });
  }
  for (const name of Object.keys(baseRefs))
    if (!(name in nextRefs)) updates.push({ action: 'remove-snapshot-ref', 'ref-name': name });
  return { requirements, updates };
}

export class RestTableOperations implements TableOperations {
  private readonly client: RestClient;
  private readonly base: string;

  constructor(
    private readonly io: CommitIO,
    private readonly id: TableIdentifier,
    o: RestOpsOptions,
  ) {
    const props =
      o.props ??
      resolveCatalogProperties({ kind: 'rest', target: o.uri, properties: {} }, o.token ? { token: o.token } : {});
    this.client = restClientFor(o.uri, props, o.fetch ? { fetch: o.fetch } : {});
    this.base = this.client.base;
  }

  private call(method: 'GET' | 'POST', body?: unknown): Promise<{ status: number; json: unknown; text: string }> {
    return this.client.request({ method, path: tablePath(this.id), ...(body === undefined ? {} : { body }) });
  }

  async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
    const r = await this.call('GET');
    if (r.status !== 200) throw this.client.errorFor('load table', r);
    const body = r.json as Record<string, unknown>;
    const md = parseMetadata(body.metadata, String(body['metadata-location']));
    return { metadata: md.raw, location: String(body['metadata-location']) };
  }

  /** Sends `change` as the transaction prepared it; a caller that names only `next` gets it derived by diffing. */
  async commit(
    base: { metadata: RawMetadata; location: string },
    next: RawMetadata,
    change?: TableChange,
  ): Promise<string> {
    const { requirements, updates } = change ?? restChanges(base.metadata, next);
    await this.client.root(); // /v1/config (and a token) before the commit: failing there is a plain failure
    faultPoint('iceberg.commit.before-publish');
    let r: { status: number; json: unknown; text: string };
    try {
      r = await this.call('POST', {
        identifier: { namespace: this.id.namespace, name: this.id.name },
        requirements,
        updates,
      });
    } catch (e) {
      // the request may have reached the catalog: only the table itself can say
      return this.afterUnknownCommit(base.metadata, next, `REST catalog ${this.base}: ${(e as Error).message}`, e);
    }
    if (r.status === 200) {
      faultPoint('iceberg.commit.after-publish');
      return String((r.json as Record<string, unknown>)['metadata-location']);
    }
    if (r.status === 409)
      throw new FloeError(
        'CommitConflict',
        this.client.scrub(`REST catalog ${this.base}: requirements failed: ${r.text.slice(0, 300)}`),
      );
    if (r.status >= 500) {
      return this.afterUnknownCommit(
        base.metadata,
        next,
        `REST catalog ${this.base}: HTTP ${r.status}; the new snapshot may or may not be committed`,
      );
    }
    // 4xx: the catalog refused the request as a whole; nothing was committed
    const refused = this.client.errorFor('commit', r);
    throw new FloeError(
      refused.kind === 'CommitConflict' ? 'InvalidArgument' : refused.kind,
      `${refused.message} (the commit was refused: nothing was committed)`,
      {
        context: refused.context,
        retryable: false,
      },
    );
  }

  /**
   * After a 5xx or a lost response: reload the table. Every snapshot we add found with our manifest list
   * (a unique file name) and our `floe.commit-id` → committed; a commit that only removes snapshots
   * (expire) counts as done when none of them is left. Anything else stays unknown — the catalog may still
   * apply the request — and nothing may be cleaned up.
   */
  private async afterUnknownCommit(
    base: RawMetadata,
    next: RawMetadata,
    why: string,
    cause?: unknown,
  ): Promise<string> {
    let loaded: { metadata: RawMetadata; location: string };
    try {
      loaded = await this.refresh();
    } catch (e) {
      throw commitStateUnknown(`${why}; reloading the table to check failed too (${(e as Error).message})`, cause);
    }
    const idOf = (s: RawMetadata) => toBigInt(s['snapshot-id'], 'snapshot-id');
    const baseIds = new Set(snapshotsOf(base).map(idOf));
    const nextIds = new Set(snapshotsOf(next).map(idOf));
    const added = snapshotsOf(next).filter((s) => !baseIds.has(idOf(s)));
    const removed = new Set([...baseIds].filter((id) => !nextIds.has(id)));
    const commitIdOf = (s: RawMetadata | undefined) =>
      (s?.summary as Record<string, string> | undefined)?.[COMMIT_ID_PROPERTY];
    const present = (s: RawMetadata) => {
      const found = snapshotsOf(loaded.metadata).find((x) => idOf(x) === idOf(s));
      return (
        !!found && String(found['manifest-list']) === String(s['manifest-list']) && commitIdOf(found) === commitIdOf(s)
      );
    };
    if (added.length > 0 && added.every(present)) return loaded.location;
    if (
      added.length === 0 &&
      removed.size > 0 &&
      !snapshotsOf(loaded.metadata).some((x) => removed.has(idOf(x))) // a Set: an expiry can remove 200,000
    )
      return loaded.location;
    throw commitStateUnknown(`${why}; the reloaded table does not show this commit (yet)`, cause);
  }
}
