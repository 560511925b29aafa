/**
 * Paimon's REST catalog (Java `org.apache.paimon.rest.RESTCatalog`; its routes are paimon-api's
 * ResourcePaths, its server side e.g. Paimon's RESTCatalogServer):
 * - `GET /v1/config?warehouse=W` → `{defaults, overrides}`; `prefix` is the path prefix of every route
 *   below (`/v1/{prefix}/…`). The same handshake as Iceberg's REST catalog, so the HTTP side is
 *   rest-client.ts (auth header, `header.*` properties, timeouts, the retry policy).
 * - `GET …/databases`, `GET …/databases/{db}/tables` → `{databases | tables, nextPageToken}` (paged by
 *   `maxResults` / `pageToken`).
 * - `GET …/databases/{db}/tables/{table}` → `{id, name, path, schemaId, schema, …}`: `path` is the table's
 *   directory, read directly (snapshots, manifests, data files as in a filesystem catalog).
 * - `POST …/databases/{db}/tables/{table}/commit` `{tableId, snapshot, statistics}` → `{success}`: the
 *   server publishes snapshot-N itself (success false: N exists already). floe commits only this way
 *   through a REST catalog (commit-lock.ts PaimonSnapshotCommitter), never by writing snapshot-N.
 * Auth: a bearer token (`token.provider=bear` in Java), from the `token` property or
 * $FLOE_PAIMON_REST_TOKEN — never from the spec (catalog-spec.ts refuses secrets there), never printed.
 */
import { FloeError } from '../../util/errors.js';
import { parseJsonLossless } from '../../util/json.js';
import { commitStateUnknown } from '../commit-state.js';
import type { PaimonSnapshotCommitter } from '../paimon/commit-lock.js';
import { parseTableIdentifier, type TableIdentifier } from './catalog.js';
import { errorKindOfStatus, RestClient, type RestClientOptions, type RestResponse } from './rest-client.js';

export interface PaimonRestTable {
  database: string;
  table: string;
  /** The table's directory, as the catalog gives it (`file:` URIs as local paths). */
  location: string;
  /** Publishes snapshots through the catalog. */
  committer: PaimonSnapshotCommitter;
}

/** The catalog properties with the token from $FLOE_PAIMON_REST_TOKEN when none is set. */
export function paimonRestProperties(
  props: Readonly<Record<string, string>>,
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const out = { ...props };
  if (out.token === undefined && env.FLOE_PAIMON_REST_TOKEN) out.token = env.FLOE_PAIMON_REST_TOKEN;
  return out;
}

export class PaimonRestCatalog {
  readonly description: string;

  private constructor(private readonly client: RestClient) {
    this.description = `paimon-rest:${client.base}`;
  }

  /** Connects (GET /v1/config with the warehouse): a wrong token or warehouse fails here, naming the catalog. */
  static async open(
    uri: string,
    props: Readonly<Record<string, string>>,
    o: RestClientOptions = {},
  ): Promise<PaimonRestCatalog> {
    const client = new RestClient(uri, paimonRestProperties(props), o);
    const catalog = new PaimonRestCatalog(client);
    if (!props.warehouse)
      throw new FloeError(
        'InvalidArgument',
        `Paimon REST catalog ${catalog.description}: give its warehouse (?warehouse=… in the spec, or --warehouse)`,
        { context: { catalog: catalog.description } },
      );
    try {
      await client.config();
    } catch (e) {
      throw catalog.wrap(e, 'connect');
    }
    return catalog;
  }

  async listTables(): Promise<TableIdentifier[]> {
    const out: TableIdentifier[] = [];
    for (const db of await this.paged('/databases', 'databases'))
      for (const t of await this.paged(`/databases/${encodeURIComponent(db)}/tables`, 'tables'))
        out.push({ namespace: [db], name: t });
    return out;
  }

  /** `<database>.<table>` → its directory and the committer of its snapshots. */
  async loadTable(ref: string): Promise<PaimonRestTable> {
    const id = parseTableIdentifier(ref);
    if (id.namespace.length !== 1)
      throw new FloeError('InvalidArgument', `Paimon table "${ref}" must be <database>.<table>`, {
        context: { catalog: this.description },
      });
    const [database, table] = [id.namespace[0]!, id.name];
    const route = `/databases/${encodeURIComponent(database)}/tables/${encodeURIComponent(table)}`;
    const body = (await this.ok('GET', route, `load table ${database}.${table}`)) as {
      id?: unknown;
      path?: unknown;
    };
    if (typeof body?.path !== 'string' || !body.path)
      throw new FloeError(
        'Corrupt',
        `Paimon REST catalog ${this.description}: table ${database}.${table} came back without a path`,
        { context: { catalog: this.description, table: ref } },
      );
    const tableId = typeof body.id === 'string' ? body.id : undefined;
    return {
      database,
      table,
      location: localPath(body.path),
      committer: new RestSnapshotCommitter(this, `${route}/commit`, `${database}.${table}`, tableId),
    };
  }

  async close(): Promise<void> {
    // HTTP only: nothing held open
  }

  /** One request; any status is returned (transport failures throw). */
  request(method: 'GET' | 'POST', path: string, body?: unknown): Promise<RestResponse> {
    return this.client.request({ method, path, ...(body !== undefined ? { body } : {}) });
  }

  /** The JSON of a 2xx answer, or a FloeError naming the catalog. */
  private async ok(method: 'GET' | 'POST', path: string, what: string): Promise<unknown> {
    let r: RestResponse;
    try {
      r = await this.request(method, path);
    } catch (e) {
      throw this.wrap(e, what);
    }
    if (r.status < 200 || r.status > 299) throw this.refusal(what, r);
    return r.json;
  }

  private async paged(path: string, key: string): Promise<string[]> {
    const out: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 10_000; page++) {
      const q = `?maxResults=1000${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`;
      const body = (await this.ok('GET', `${path}${q}`, `list ${key}`)) as Record<string, unknown> | undefined;
      const items = body?.[key];
      if (Array.isArray(items)) out.push(...items.map(String));
      token = typeof body?.nextPageToken === 'string' && body.nextPageToken ? body.nextPageToken : undefined;
      if (!token) break;
    }
    return out;
  }

  /** A non-2xx answer as a FloeError: its kind by status, the server's message quoted (scrubbed). */
  refusal(what: string, r: RestResponse): FloeError {
    const e = r.json as { message?: unknown; code?: unknown } | undefined;
    const detail = typeof e?.message === 'string' ? e.message : r.text.slice(0, 300);
    return new FloeError(
      errorKindOfStatus(r.status),
      this.client.scrub(`Paimon REST catalog ${this.description}: ${what} → HTTP ${r.status}: ${detail.slice(0, 500)}`),
      { context: { catalog: this.description, status: r.status }, retryable: false },
    );
  }

  /** A transport failure (or rest-client's own error) re-worded to name this catalog. */
  wrap(e: unknown, what: string): FloeError {
    const msg = e instanceof Error ? e.message : String(e);
    const kind = e instanceof FloeError ? e.kind : 'Transient';
    return new FloeError(kind, this.client.scrub(`Paimon REST catalog ${this.description}: ${what}: ${msg}`), {
      context: { catalog: this.description },
      cause: e,
      ...(e instanceof FloeError ? { retryable: e.retryable } : {}),
    });
  }
}

/** `file:/x`, `file:///x` → `/x`; other locations (s3://…, plain paths) as they are. */
function localPath(p: string): string {
  const m = /^file:(?:\/\/)?(\/.*)$/.exec(p);
  return m ? decodeURIComponent(m[1]!) : p;
}

class RestSnapshotCommitter implements PaimonSnapshotCommitter {
  readonly description: string;

  constructor(
    private readonly catalog: PaimonRestCatalog,
    private readonly route: string,
    private readonly table: string,
    private readonly tableId: string | undefined,
  ) {
    this.description = `${catalog.description} table ${table}`;
  }

  async commitSnapshot(id: bigint, snapshotJson: string): Promise<void> {
    const what = `commit of snapshot ${id} of ${this.table}`;
    const body = {
      ...(this.tableId !== undefined ? { tableId: this.tableId } : {}),
      snapshot: parseJsonLossless(snapshotJson), // 64-bit fields stay exact
      statistics: [],
    };
    let r: RestResponse;
    try {
      r = await this.catalog.request('POST', this.route, body);
    } catch (e) {
      // the request may have reached the server: whether it published snapshot-N is unknown
      throw commitStateUnknown(this.catalog.wrap(e, what).message, e);
    }
    if (r.status >= 500 || r.status === 408) throw commitStateUnknown(this.catalog.refusal(what, r).message);
    if (r.status < 200 || r.status > 299) {
      const refused = this.catalog.refusal(what, r);
      throw new FloeError(refused.kind, `${refused.message}; the catalog refused the commit, nothing was committed`, {
        context: refused.context,
        retryable: false,
      });
    }
    const success = (r.json as { success?: unknown } | undefined)?.success;
    if (success === true) return;
    if (success === false)
      throw new FloeError(
        'PreconditionFailed',
        `Paimon REST catalog ${this.catalog.description}: snapshot ${id} of ${this.table} exists already`,
        { context: { catalog: this.catalog.description, snapshotId: String(id) } },
      );
    throw commitStateUnknown(
      `Paimon REST catalog ${this.catalog.description}: ${what}: the answer has no success flag (${r.text.slice(0, 200)})`,
    );
  }
}
