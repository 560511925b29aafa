/**
 * The AWS Glue Data Catalog API (not its Iceberg REST endpoint, which is `rest:` with SigV4): an Iceberg
 * table is a Glue table whose parameters say `table_type=ICEBERG` and name its `metadata_location`, as
 * Java's GlueCatalog writes them; a namespace is a Glue database. Spec `glue:<catalog-id>` (`glue:default`
 * for the caller's account), properties `glue.region` (else `client.region`, $AWS_REGION), `glue.endpoint`,
 * `glue.access-key-id` / `glue.secret-access-key` / `glue.session-token` (else the SDK's default chain).
 *
 * @aws-sdk/client-glue is an optional peer dependency, imported on first use.
 */
import { FloeError } from '../../util/errors.js';
import type { IcebergCatalog, LoadedTable, TableIdentifier } from './catalog.js';
import { identifierToString } from './catalog.js';

export type GlueSdk = typeof import('@aws-sdk/client-glue');
type GlueClient = InstanceType<GlueSdk['GlueClient']>;

let sdk: Promise<GlueSdk> | undefined;

export function loadGlueSdk(): Promise<GlueSdk> {
  sdk ??= import('@aws-sdk/client-glue').catch((e: unknown) => {
    sdk = undefined;
    throw new FloeError(
      'Unsupported',
      `the glue: catalog needs the optional package @aws-sdk/client-glue (npm install @aws-sdk/client-glue): ${String(e)}`,
      { cause: e },
    );
  });
  return sdk;
}

/** A Glue table as floe reads it: the pointer and the version the next UpdateTable must name. */
export interface GlueTableState {
  metadataLocation: string;
  versionId: string | undefined;
  /** The whole table, for UpdateTable's TableInput. */
  table: Record<string, unknown>;
}

export class GlueSession {
  readonly description: string;
  private client: Promise<GlueClient> | undefined;

  constructor(
    readonly catalogId: string,
    private readonly props: Record<string, string>,
  ) {
    this.description = `glue:${catalogId}`;
  }

  get idParam(): { CatalogId?: string } {
    return this.catalogId === 'default' ? {} : { CatalogId: this.catalogId };
  }

  sdk(): Promise<GlueSdk> {
    return loadGlueSdk();
  }

  glue(): Promise<GlueClient> {
    this.client ??= loadGlueSdk().then((m) => {
      const p = this.props;
      const region = p['glue.region'] ?? p['client.region'] ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION;
      const keyId = p['glue.access-key-id'];
      const secret = p['glue.secret-access-key'];
      return new m.GlueClient({
        ...(region ? { region } : {}),
        ...(p['glue.endpoint'] ? { endpoint: p['glue.endpoint'] } : {}),
        ...(keyId && secret
          ? {
              credentials: {
                accessKeyId: keyId,
                secretAccessKey: secret,
                ...(p['glue.session-token'] ? { sessionToken: p['glue.session-token'] } : {}),
              },
            }
          : {}),
      });
    });
    return this.client;
  }

  /** A FloeError for an SDK failure, naming the catalog and the table; never the credentials. */
  errorFor(what: string, e: unknown): FloeError {
    if (e instanceof FloeError) return e;
    const name = (e as { name?: string }).name ?? 'Error';
    const status = (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
    const kind =
      name === 'EntityNotFoundException'
        ? 'NotFound'
        : name === 'AccessDeniedException' || status === 403
          ? 'AccessDenied'
          : name === 'ConcurrentModificationException'
            ? 'CommitConflict'
            : name === 'InvalidInputException'
              ? 'InvalidArgument'
              : 'Transient';
    return new FloeError(kind, `Glue catalog ${this.description}: ${what}: ${name}: ${(e as Error).message}`, {
      context: { catalog: this.description, ...(status ? { status } : {}) },
      cause: e,
    });
  }

  async getTable(id: TableIdentifier): Promise<GlueTableState> {
    const database = glueDatabase(id, this.description);
    const m = await this.sdk();
    let out: { Table?: Record<string, unknown> };
    try {
      out = (await (
        await this.glue()
      ).send(new m.GetTableCommand({ ...this.idParam, DatabaseName: database, Name: id.name }))) as {
        Table?: Record<string, unknown>;
      };
    } catch (e) {
      throw this.errorFor(`GetTable ${identifierToString(id)}`, e);
    }
    const table = out.Table ?? {};
    const params = (table.Parameters ?? {}) as Record<string, string>;
    if ((params.table_type ?? '').toUpperCase() !== 'ICEBERG' || !params.metadata_location)
      throw new FloeError(
        'Unsupported',
        `Glue catalog ${this.description}: ${identifierToString(id)} is not an Iceberg table (table_type=${params.table_type ?? 'unset'})`,
      );
    return {
      metadataLocation: params.metadata_location,
      versionId: typeof table.VersionId === 'string' ? table.VersionId : undefined,
      table,
    };
  }

  close(): void {
    void this.client?.then((c) => c.destroy()).catch(() => undefined);
    this.client = undefined;
  }
}

export function glueDatabase(id: TableIdentifier, catalog: string): string {
  if (id.namespace.length !== 1)
    throw new FloeError(
      'InvalidArgument',
      `Glue catalog ${catalog}: ${identifierToString(id)}: Glue namespaces are one level (a database)`,
    );
  return id.namespace[0]!;
}

export class GlueCatalog implements IcebergCatalog {
  readonly description: string;
  private readonly session: GlueSession;

  constructor(catalogId: string, props: Record<string, string>) {
    this.session = new GlueSession(catalogId, props);
    this.description = this.session.description;
  }

  async loadTable(id: TableIdentifier): Promise<LoadedTable> {
    const t = await this.session.getTable(id);
    return { identifier: id, metadataLocation: t.metadataLocation };
  }

  async listTables(maxTables = 100_000): Promise<TableIdentifier[]> {
    const m = await this.session.sdk();
    const glue = await this.session.glue();
    const out: TableIdentifier[] = [];
    const databases: string[] = [];
    try {
      let token: string | undefined;
      for (let page = 0; page < 10_000; page++) {
        const r = await glue.send(
          new m.GetDatabasesCommand({ ...this.session.idParam, ...(token ? { NextToken: token } : {}) }),
        );
        for (const d of r.DatabaseList ?? []) if (d.Name) databases.push(d.Name);
        token = r.NextToken;
        if (!token) break;
      }
      for (const db of databases) {
        let next: string | undefined;
        for (let page = 0; page < 10_000 && out.length <= maxTables; page++) {
          const r = await glue.send(
            new m.GetTablesCommand({ ...this.session.idParam, DatabaseName: db, ...(next ? { NextToken: next } : {}) }),
          );
          for (const t of r.TableList ?? [])
            if (t.Name && (t.Parameters?.table_type ?? '').toUpperCase() === 'ICEBERG')
              out.push({ namespace: [db], name: t.Name });
          next = r.NextToken;
          if (!next) break;
        }
      }
    } catch (e) {
      throw this.session.errorFor('listing tables', e);
    }
    return out.sort((a, b) => identifierToString(a).localeCompare(identifierToString(b)));
  }

  async close(): Promise<void> {
    this.session.close();
  }
}
