/**
 * Opening an Iceberg table to read and commit it: storage for its locations (local or S3 from the
 * environment, with location-map rules), the table itself, and how to publish a commit (filesystem
 * create-if-absent, SQL compare-and-swap, REST). Tables copied away from where they were written are
 * followed automatically: their recorded location is mapped to where they were opened.
 *
 * This is plumbing shared by every layer that opens tables (src/app for the shells, src/distributed for the
 * seam), so it lives with the Iceberg connector; library users reach it through src/app/open-table.ts.
 */
import { FloeError } from '../../util/errors.js';
import { FileIO } from '../storage/file-io.js';
import { normalizeLocation, parseLocationMapSpec } from '../storage/location.js';
import { storageConfigFromEnv } from '../storage/env.js';
import { FilesystemTableOperations } from './commit-ops.js';
import { openIcebergTable, type IcebergTable, type OpenOptions } from './table.js';
import type { TableOperations } from './commit-rewrite.js';
import { RestTableOperations, SqlTableOperations } from './commit-catalog.js';
import { parseTableIdentifier, type CatalogOptions } from '../catalog/catalog.js';
import { parseCatalogSpec, resolveCatalogProperties } from '../catalog/catalog-spec.js';

/** Where a table is and how to reach it: location-map rules, and a catalog for `<ns>.<table>` references. */
export interface AccessOptions {
  /** `FROM=TO` location rewrites, as `--location-map`. */
  locationMap?: string[];
  /** `sql:<sqlite path | postgres URL>` or `rest:<url>`; the table is then `<ns>.<table>` (Iceberg only). */
  catalog?: string;
  /** SQL catalog: the catalog_name when the database holds several. */
  catalogName?: string;
  /** REST catalog bearer token (else $FLOE_REST_TOKEN). */
  token?: string;
  /** REST catalog OAuth2 client credentials `client_id:client_secret` (else $FLOE_REST_CREDENTIAL). */
  credential?: string;
  /** REST catalog warehouse. */
  warehouse?: string;
  /** A catalog properties file (`--catalog-properties`, else $FLOE_CATALOG_PROPERTIES): its path, not its content. */
  catalogProperties?: string;
  /** Catalog properties given inline (`floe serve`'s `catalogProperties:`). */
  catalogPropertyValues?: Record<string, string>;
}

export interface OpenedIcebergTable {
  table: IcebergTable;
  /** Reads and commits the table (the same object as `files`; kept for callers that name it so). */
  io: FileIO;
  files: FileIO;
  /** How to publish commits; undefined when the table's catalog does not support floe commits yet. */
  ops?: TableOperations;
}

/** The catalog options among the access options (what openCatalog and the commit path resolve properties from). */
export function catalogOptionsOf(o: AccessOptions): CatalogOptions {
  return {
    ...(o.catalogName ? { catalogName: o.catalogName } : {}),
    ...(o.token ? { token: o.token } : {}),
    ...(o.credential ? { credential: o.credential } : {}),
    ...(o.warehouse ? { warehouse: o.warehouse } : {}),
    ...(o.catalogProperties ? { catalogPropertiesFile: o.catalogProperties } : {}),
    ...(o.catalogPropertyValues ? { catalogPropertyValues: o.catalogPropertyValues } : {}),
  };
}

function catalogOptions(o: AccessOptions): OpenOptions {
  if (!o.catalog) return {};
  return { catalog: o.catalog, catalogOptions: catalogOptionsOf(o) };
}

/** Opens a table by path, metadata file, or `<ns>.<table>` with `o.catalog`. Call `files.destroy()` when done. */
export async function openIcebergForWrite(ref: string, o: AccessOptions): Promise<OpenedIcebergTable> {
  const mappings = (o.locationMap ?? []).map(parseLocationMapSpec);
  if (o.catalog) {
    // the table's FileIO is built once the catalog answered: it may vend credentials for the table's files
    const { locationMap: _rules, ...storage } = storageConfigFromEnv([]);
    const table = await openIcebergTable(ref, { ...catalogOptions(o), remap: mappings, storage });
    const files = table.files!;
    try {
      return { table, io: files, files, ops: await catalogOps(ref, o, files) };
    } catch (e) {
      files.destroy();
      throw e;
    }
  }
  let files = new FileIO(storageConfigFromEnv(mappings));
  let table = await openIcebergTable(ref, { io: files });
  const opened = openedTableDir(ref, table.metadataLocation);
  const recorded = table.metadata.location;
  if (files.map(recorded) !== normalizeLocation(opened)) {
    // a copied table: its files live under where it was opened, not where its metadata says
    files.destroy();
    files = new FileIO(storageConfigFromEnv([...mappings, { from: recorded, to: opened }]));
    table = await openIcebergTable(ref, { io: files });
  }
  const ops = new FilesystemTableOperations(files, `${table.metadata.location.replace(/\/$/, '')}/metadata`, {
    location: table.metadataLocation,
    metadata: table.metadata.raw,
  });
  return { table, io: files, files, ops };
}

async function catalogOps(ref: string, o: AccessOptions, io: FileIO): Promise<TableOperations> {
  const spec = parseCatalogSpec(o.catalog ?? '');
  const id = parseTableIdentifier(ref);
  if (spec.kind === 'sql') return new SqlTableOperations(io, spec.target, id, o.catalogName); // SQLite path or PostgreSQL URL
  const props = resolveCatalogProperties(spec, catalogOptionsOf(o));
  if (spec.kind === 'glue') {
    const { GlueTableOperations } = await import('./commit-glue.js');
    return new GlueTableOperations(io, id, spec.target, props);
  }
  return new RestTableOperations(io, id, { uri: spec.target, props });
}

/** The table directory a user pointed at: the directory itself, or two levels above a metadata file. */
function openedTableDir(ref: string, metadataLocation: string): string {
  const stripped = ref.replace(/\/+$/, '');
  if (stripped === metadataLocation.replace(/\/+$/, '') || /\.metadata\.json(\.gz)?$/.test(stripped)) {
    return stripped.split('/').slice(0, -2).join('/') || '.';
  }
  return stripped;
}

export function requireCommitOps(t: OpenedIcebergTable): TableOperations {
  if (!t.ops) {
    throw new FloeError(
      'Unsupported',
      `committing through the ${t.table.catalog?.spec ?? 'catalog'} catalog is not supported yet; open the table by its location`,
    );
  }
  return t.ops;
}
