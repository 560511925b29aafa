/**
 * Opening a table for a command: storage for its locations (local or S3, with `--location-map` rules),
 * the table itself, and — for filesystem tables — how to publish a commit. Tables copied away from where
 * they were written are followed automatically: their recorded location is mapped to where they were opened.
 */
import { FloeError } from '../errors.js';
import { FileIO, type StorageConfig } from '../../connectors/storage/file-io.js';
import {
  LocationMap,
  normalizeLocation,
  parseLocationMapSpec,
  type LocationMapping,
} from '../../connectors/storage/location.js';
import { TableFileIO } from '../../connectors/iceberg/commit-io.js';
import { FilesystemTableOperations } from '../../connectors/iceberg/commit-ops.js';
import { openIcebergTable, type IcebergTable, type OpenOptions } from '../../connectors/iceberg/table.js';
import type { TableOperations } from '../../connectors/iceberg/commit-rewrite.js';
import { RestTableOperations, SqlTableOperations } from '../../connectors/iceberg/commit-catalog.js';
import { parseTableIdentifier } from '../../connectors/catalog/catalog.js';

export interface AccessOptions {
  locationMap?: string[];
  catalog?: string;
  catalogName?: string;
  token?: string;
  warehouse?: string;
}

/** S3 settings from the environment: the AWS SDK's own chain plus an endpoint for S3-compatible servers. */
export function storageConfigFromEnv(mappings: LocationMapping[]): StorageConfig {
  const endpoint = process.env.FLOE_S3_ENDPOINT ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const pathStyle = process.env.FLOE_S3_PATH_STYLE ?? (endpoint ? 'true' : 'false');
  return {
    locationMap: new LocationMap(mappings),
    s3: { ...(endpoint ? { endpoint } : {}), forcePathStyle: pathStyle === 'true' },
  };
}

export interface OpenedIcebergTable {
  table: IcebergTable;
  io: TableFileIO;
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

export async function openIcebergForWrite(ref: string, o: AccessOptions): Promise<OpenedIcebergTable> {
  const mappings = (o.locationMap ?? []).map(parseLocationMapSpec);
  let files = new FileIO(storageConfigFromEnv(mappings));
  let io = new TableFileIO(files);
  let table = await openIcebergTable(ref, { ...catalogOptions(o), io });
  if (!o.catalog) {
    const opened = openedTableDir(ref, table.metadataLocation);
    const recorded = table.metadata.location;
    if (files.map(recorded) !== normalizeLocation(opened)) {
      // a copied table: its files live under where it was opened, not where its metadata says
      files.destroy();
      files = new FileIO(storageConfigFromEnv([...mappings, { from: recorded, to: opened }]));
      io = new TableFileIO(files);
      table = await openIcebergTable(ref, { ...catalogOptions(o), io });
    }
  }
  const ops =
    table.via === 'catalog'
      ? catalogOps(ref, o, io)
      : new FilesystemTableOperations(io, `${table.metadata.location.replace(/\/$/, '')}/metadata`);
  return { table, io, files, ...(ops ? { ops } : {}) };
}

function catalogOps(ref: string, o: AccessOptions, io: TableFileIO): TableOperations {
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
