/**
 * Iceberg REST catalog, read side (open-api/rest-catalog-open-api.yaml), over the one RestClient:
 *   GET /v1/config[?warehouse=…] → defaults, overrides, prefix (rest-client.ts);
 *   GET /v1/{prefix}/namespaces/{ns}/tables/{table} with `X-Iceberg-Access-Delegation: vended-credentials`
 *     → LoadTableResult { metadata-location, metadata, config, storage-credentials };
 *   GET …/tables/{table}/credentials → fresh storage credentials (where the catalog lists that endpoint);
 *   GET /v1/{prefix}/namespaces[?parent=…] and …/namespaces/{ns}/tables, following `next-page-token`.
 * Bodies are parsed losslessly (snapshot ids > 2^53).
 */
import { FloeError } from '../../util/errors.js';
import {
  identifierToString,
  type IcebergCatalog,
  type LoadedTable,
  type TableIdentifier,
  type VendedCredentials,
} from './catalog.js';
import { namespacePath, RestClient, type RestClientOptions } from './rest-client.js';

const clients = new Map<string, RestClient>();

/**
 * One client (one OAuth2 session, one /v1/config) per catalog and properties in this process, like one
 * Java RESTSessionCatalog: loading, listing and committing a table share its token.
 */
export function restClientFor(uri: string, props: Record<string, string>, o: RestClientOptions = {}): RestClient {
  if (o.fetch || o.retry) return new RestClient(uri, props, o);
  const key = JSON.stringify([uri, Object.entries(props).sort()]);
  let c = clients.get(key);
  if (!c) {
    c = new RestClient(uri, props);
    clients.set(key, c);
  }
  return c;
}

const CREDENTIALS_ENDPOINT = 'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials';

export function tablePath(id: TableIdentifier): string {
  return `/namespaces/${namespacePath(id.namespace)}/tables/${encodeURIComponent(id.name)}`;
}

export class RestCatalog implements IcebergCatalog {
  readonly description: string;
  readonly client: RestClient;

  constructor(uri: string, props: Record<string, string>, o: RestClientOptions = {}) {
    this.client = restClientFor(uri, props, o);
    this.description = this.client.description;
  }

  async loadTable(id: TableIdentifier): Promise<LoadedTable> {
    const body = (await this.client.json({
      method: 'GET',
      path: tablePath(id),
      headers: this.client.delegationHeader(),
    })) as Record<string, unknown>;
    const loc = body['metadata-location'];
    if (typeof loc !== 'string' && !body.metadata) {
      throw new FloeError(
        'Corrupt',
        `REST catalog ${this.client.base}: table ${identifierToString(id)} came back without metadata`,
      );
    }
    const out: LoadedTable = {
      identifier: id,
      metadataLocation: typeof loc === 'string' ? loc : `${this.description}#${identifierToString(id)}`,
    };
    if (body.metadata) out.metadata = body.metadata;
    const vended = vendedOf(body);
    if (Object.keys(vended.config).length > 0) out.config = vended.config;
    if (vended.storageCredentials.length > 0) out.storageCredentials = vended.storageCredentials;
    out.refreshCredentials = () => this.credentials(id);
    return out;
  }

  /** The table's storage credentials now: the credentials endpoint where offered, else a fresh loadTable. */
  async credentials(id: TableIdentifier): Promise<VendedCredentials> {
    if (await this.client.supports(CREDENTIALS_ENDPOINT)) {
      const r = await this.client.request({
        method: 'GET',
        path: `${tablePath(id)}/credentials`,
        headers: this.client.delegationHeader(),
      });
      // a catalog that lists no endpoints may still lack this one (404/405/501): fall back to loadTable
      if (r.status === 200)
        return { config: {}, storageCredentials: vendedOf(r.json as Record<string, unknown>).storageCredentials };
      if (r.status !== 404 && r.status !== 405 && r.status !== 501) throw this.client.errorFor('GET …/credentials', r);
    }
    const body = (await this.client.json({
      method: 'GET',
      path: tablePath(id),
      headers: this.client.delegationHeader(),
    })) as Record<string, unknown>;
    return vendedOf(body);
  }

  /** Every table of every namespace (nested namespaces too), sorted; `maxTables` stops runaway listings. */
  async listTables(maxTables = 100_000): Promise<TableIdentifier[]> {
    const paged = async (p: string, key: 'namespaces' | 'identifiers'): Promise<unknown[]> => {
      const out: unknown[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < 10_000; page++) {
        const sep = p.includes('?') ? '&' : '?';
        const body = (await this.client.json({
          method: 'GET',
          path: pageToken === undefined ? p : `${p}${sep}pageToken=${encodeURIComponent(pageToken)}`,
        })) as Record<string, unknown>;
        out.push(...((body[key] as unknown[] | undefined) ?? []));
        const next = body['next-page-token'];
        if (typeof next !== 'string' || next === '' || out.length > maxTables) break;
        pageToken = next;
      }
      return out;
    };
    const tables: TableIdentifier[] = [];
    const queue = (await paged('/namespaces', 'namespaces')) as string[][];
    const seen = new Set<string>();
    while (queue.length > 0 && tables.length <= maxTables) {
      const ns = queue.shift()!;
      const enc = namespacePath(ns);
      if (seen.has(enc)) continue;
      seen.add(enc);
      for (const id of (await paged(`/namespaces/${enc}/tables`, 'identifiers')) as TableIdentifier[])
        tables.push({ namespace: id.namespace, name: id.name });
      // nested namespaces (catalogs without them answer with an empty list or ignore `parent`)
      for (const child of (await paged(`/namespaces?parent=${enc}`, 'namespaces')) as string[][])
        if (child.length > ns.length) queue.push(child);
    }
    return tables.sort((a, b) => identifierToString(a).localeCompare(identifierToString(b)));
  }

  async close(): Promise<void> {}
}

function vendedOf(body: Record<string, unknown> | undefined): VendedCredentials {
  const config: Record<string, string> = {};
  const rawConfig = body?.config;
  if (rawConfig && typeof rawConfig === 'object')
    for (const [k, v] of Object.entries(rawConfig as Record<string, unknown>)) if (v != null) config[k] = String(v);
  const storageCredentials: VendedCredentials['storageCredentials'] = [];
  const list = body?.['storage-credentials'];
  if (Array.isArray(list))
    for (const c of list as { prefix?: unknown; config?: Record<string, unknown> }[]) {
      if (typeof c.prefix !== 'string' || !c.config) continue;
      const cfg: Record<string, string> = {};
      for (const [k, v] of Object.entries(c.config)) if (v != null) cfg[k] = String(v);
      storageCredentials.push({ prefix: c.prefix, config: cfg });
    }
  return { config, storageCredentials };
}
