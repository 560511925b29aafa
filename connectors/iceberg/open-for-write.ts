/**
 * Opening an Iceberg table to read and commit it: storage for its locations (local or S3 from the
 * environment, with location-map rules), the table itself, and how to publish a commit (filesystem
 * create-if-absent, SQL compare-and-swap, REST). Tables copied away from where they were written are
 * followed automatically: their recorded location is mapped to where they were opened.
 *
 * This is plumbing shared by every layer that opens tables (src/app for the shells, src/distributed for the
 * seam), so it lives with the Iceberg connector; library users reach it through src/app/open-table.ts.
 */
import { FloeError } from '../../src/errors.js';
import { FileIO } from '../storage/file-io.js';
import { normalizeLocation, parseLocationMapSpec } from '../storage/location.js';
import { storageConfigFromEnv } from '../storage/env.js';
import { FilesystemTableOperations } from './commit-ops.js';
import { openIcebergTable, type IcebergTable, type OpenOptions } from './table.js';
import type { TableOperations } from './commit-rewrite.js';
import { RestTableOperations, SqlTableOperations } from './commit-catalog.js';
import { parseTableIdentifier } from '../catalog/catalog.js';

/** Where a table is and how to reach it: location-map rules, and a catalog for `<ns>.<table>` references. */
export interface AccessOptions {
  /** `FROM=TO` location rewrites, as `--location-map`. */
  locationMap?: string[];
  /** `sql:<sqlite path | postgres URL>` or `rest:<url>`; the table is then `<ns>.<table>` (Iceberg only). */
  catalog?: string;
  /** SQL catalog: the catalog_name when the database holds several. */
  catalogName?: string;
  /** REST catalog bearer token. */
  token?: string;
  /** REST catalog warehouse. */
  warehouse?: string;
}

export interface OpenedIcebergTable {
  table: IcebergTable;
  /** Reads and commits the table (the same object as `files`; kept for callers that name it so). */
  io: FileIO;
  files: FileIO;
  /** How to publish commits; undefined when the table's catalog does not support floe commits yet. */
  ops?: TableOperations;
}

function catalogOptions(o: AccessOptions): OpenOptions {
  if (!o.catalog) return {};
  return {
    catalog: o.catalog,
    catalogOptions: {
      ...(o.catalogName ? { catalogName: o.catalogName } : {}),
      ...(o.token ? { token: o.token } : {}),
      ...(o.warehouse ? { warehouse: o.warehouse } : {}),
    },
  };
}

/** Opens a table by path, metadata file, or `<ns>.<table>` with `o.catalog`. Call `files.destroy()` when done. */
export async function openIcebergForWrite(ref: string, o: AccessOptions): Promise<OpenedIcebergTable> {
  const mappings = (o.locationMap ?? []).map(parseLocationMapSpec);
  let files = new FileIO(storageConfigFromEnv(mappings));
  let table = await openIcebergTable(ref, { ...catalogOptions(o), io: files });
  if (!o.catalog) {
    const opened = openedTableDir(ref, table.metadataLocation);
    const recorded = table.metadata.location;
    if (files.map(recorded) !== normalizeLocation(opened)) {
      // a copied table: its files live under where it was opened, not where its metadata says
      files.destroy();
      files = new FileIO(storageConfigFromEnv([...mappings, { from: recorded, to: opened }]));
      table = await openIcebergTable(ref, { ...catalogOptions(o), io: files });
    }
  }
  const ops =
    table.via === 'catalog'
      ? catalogOps(ref, o, files)
      : new FilesystemTableOperations(files, `${table.metadata.location.replace(/\/$/, '')}/metadata`);
  return { table, io: files, files, ...(ops ? { ops } : {}) };
}

function catalogOps(ref: string, o: AccessOptions, io: FileIO): TableOperations {
  const spec = o.catalog ?? '';
  const i = spec.indexOf(':');
  const kind = spec.slice(0, i);
  const target = spec.slice(i + 1);
  const id = parseTableIdentifier(ref);
  if (kind === 'sql') return new SqlTableOperations(io, target, id, o.catalogName); // SQLite path or PostgreSQL URL
  return new RestTableOperations(io, id, {
    uri: target,
    ...(o.token ? { token: o.token } : {}),
    ...(o.warehouse ? { warehouse: o.warehouse } : {}),
  });
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
