/**
 * Iceberg REST catalog, read side (open-api/rest-catalog-open-api.yaml):
 *   GET {uri}/v1/config[?warehouse=…] → { defaults, overrides } — overrides.prefix is the path prefix;
 *   GET {uri}/v1/{prefix}/namespaces/{ns}/tables/{table} → LoadTableResult { metadata-location, metadata, config }.
 * Multi-level namespaces are joined with the unit separator 0x1F and URL-encoded. Bodies are parsed
 * losslessly (snapshot ids > 2^53).
 */
import { FloeError } from '../../src/errors.js';
import { parseJsonLossless } from '../../src/util/json.js';
import {
  identifierToString,
  type CatalogOptions,
  type IcebergCatalog,
  type LoadedTable,
  type TableIdentifier,
} from './catalog.js';

export class RestCatalog implements IcebergCatalog {
  readonly description: string;
  private readonly base: string;
  private prefix: string | undefined;
  private readonly token: string | undefined;
  private readonly doFetch: typeof fetch;

  constructor(
    uri: string,
    private readonly options: CatalogOptions = {},
  ) {
    this.base = uri.replace(/\/+$/, '');
    this.description = `rest:${this.base}`;
    this.token = options.token ?? process.env.FLOE_REST_TOKEN;
    this.doFetch = options.fetch ?? fetch;
  }

  private async get(path: string): Promise<unknown> {
    const url = `${this.base}${path}`;
    let res: Response;
    try {
      res = await this.doFetch(url, {
        headers: { Accept: 'application/json', ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}) },
      });
    } catch (e) {
      throw new FloeError('Transient', `REST catalog ${this.base}: GET ${path} failed: ${(e as Error).message}`, {
        cause: e,
      });
    }
    const text = await res.text();
    if (!res.ok) {
      let msg = text.slice(0, 500);
      try {
        const body = JSON.parse(text) as { error?: { message?: string; type?: string } };
        if (body.error?.message) msg = `${body.error.type ?? 'error'}: ${body.error.message}`;
      } catch {
        // not JSON: keep the raw text
      }
      const kind =
        res.status === 404
          ? 'NotFound'
          : res.status === 401 || res.status === 403
            ? 'AccessDenied'
            : res.status >= 500 || res.status === 429
              ? 'Transient'
              : 'InvalidArgument';
      throw new FloeError(kind, `REST catalog ${this.base}: GET ${path} → HTTP ${res.status}: ${msg}`, {
        context: { status: res.status },
      });
    }
    try {
      return parseJsonLossless(text);
    } catch (e) {
      throw new FloeError(
        'Corrupt',
        `REST catalog ${this.base}: GET ${path} returned invalid JSON: ${(e as Error).message}`,
      );
    }
  }

  private async resolvePrefix(): Promise<string> {
    if (this.prefix !== undefined) return this.prefix;
    const q = this.options.warehouse ? `?warehouse=${encodeURIComponent(this.options.warehouse)}` : '';
    const cfg = (await this.get(`/v1/config${q}`)) as {
      overrides?: Record<string, string>;
      defaults?: Record<string, string>;
    };
    const p = cfg.overrides?.prefix ?? cfg.defaults?.prefix ?? '';
    this.prefix = p ? `/${p.replace(/^\/+|\/+$/g, '')}` : '';
    return this.prefix;
  }

  async loadTable(id: TableIdentifier): Promise<LoadedTable> {
    const prefix = await this.resolvePrefix();
    const ns = encodeURIComponent(id.namespace.join('\u001f'));
    const body = (await this.get(`/v1${prefix}/namespaces/${ns}/tables/${encodeURIComponent(id.name)}`)) as Record<
      string,
      unknown
    >;
    const loc = body['metadata-location'];
    if (typeof loc !== 'string' && !body.metadata) {
      throw new FloeError(
        'Corrupt',
        `REST catalog ${this.base}: table ${identifierToString(id)} came back without metadata`,
      );
    }
    const out: LoadedTable = {
      identifier: id,
      metadataLocation: typeof loc === 'string' ? loc : `${this.description}#${identifierToString(id)}`,
    };
    if (body.metadata) out.metadata = body.metadata;
    if (body.config && typeof body.config === 'object') out.config = body.config as Record<string, string>;
    return out;
  }

  async close(): Promise<void> {}
}
