/**
 * Opening an Iceberg table from what a user types — a table directory, an object-store location, a
 * metadata file, or a catalog identifier — and turning it into the neutral TableModel.
 */
import { FloeError } from '../../util/errors.js';
import type { TableModel } from '../../model/index.js';
import { openCatalog, parseTableIdentifier, type CatalogOptions } from '../catalog/index.js';
import type { IcebergIO } from './io.js';
import { fileIOWithMappings, type FileIO, type StorageConfig } from '../storage/file-io.js';
import { hasVendedStorage, vendedStorageConfig } from '../storage/vended-credentials.js';
import { LocationMap, normalizeLocation, type LocationMapping } from '../storage/location.js';
import { isMetadataFileName, locateCurrentMetadata, type LocatedMetadata } from './locate.js';
import { allFieldsById, liveFilesOf, type LiveFilesOptions, type ManifestFile } from './manifests.js';
import { findSnapshot, parseMetadata, parseMetadataBytes, type IcebergMetadata } from './metadata.js';

export interface IcebergTable {
  metadata: IcebergMetadata;
  metadataLocation: string;
  io: IcebergIO;
  /** How the metadata file was found. */
  via: LocatedMetadata['via'] | 'metadata-file' | 'catalog';
  /** Catalog identifier, when opened through one. */
  catalog?: { spec: string; identifier: string };
  /** The FileIO this function built (with the catalog's vended credentials, if any), when none was passed. */
  files?: FileIO;
}

export interface OpenOptions {
  /** `--location-map FROM=TO` rules. */
  remap?: readonly LocationMapping[];
  /** `sql:<path-or-url>` / `rest:<url>`: then `ref` is `ns.table`. */
  catalog?: string;
  catalogOptions?: CatalogOptions;
  /** Supply your own IO (tests, object stores); `remap` is ignored then. */
  io?: IcebergIO;
  /** S3 connection etc. for the default storage-backed IO. */
  storage?: Omit<StorageConfig, 'locationMap'>;
  /**
   * When a table is opened by path and its metadata names another location (a copied or relocated
   * table), read its files from where it was opened. Default true; user remaps win.
   */
  followOpenedLocation?: boolean;
}

export async function openIcebergTable(ref: string, options: OpenOptions = {}): Promise<IcebergTable> {
  const rules = [...(options.remap ?? [])];
  if (options.catalog) {
    let io: IcebergIO | undefined = options.io;
    const catalog = await openCatalog(options.catalog, options.catalogOptions);
    try {
      const id = parseTableIdentifier(ref);
      const loaded = await catalog.loadTable(id);
      const vended = { config: loaded.config ?? {}, storageCredentials: loaded.storageCredentials ?? [] };
      let files: FileIO | undefined;
      if (!io) {
        // the catalog's vended credentials reach this table's files; the environment's reach the rest
        const storage = hasVendedStorage(vended)
          ? vendedStorageConfig(options.storage ?? {}, {
              catalog: catalog.description,
              table: ref,
              initial: vended,
              ...(loaded.refreshCredentials ? { refresh: loaded.refreshCredentials } : {}),
            })
          : options.storage;
        files = fileIOWithMappings(rules, storage);
        io = files;
      }
      const metadata = loaded.metadata
        ? parseMetadata(loaded.metadata, loaded.metadataLocation)
        : parseMetadataBytes(await io.read(loaded.metadataLocation), loaded.metadataLocation);
      return {
        metadata,
        metadataLocation: loaded.metadataLocation,
        io,
        via: 'catalog',
        catalog: { spec: options.catalog, identifier: ref },
        ...(files ? { files } : {}),
      };
    } finally {
      await catalog.close();
    }
  }

  let io: IcebergIO = options.io ?? fileIOWithMappings(rules, options.storage);
  const stripped = ref.replace(/\/+$/, '');
  let metadataLocation: string;
  let via: IcebergTable['via'];
  let openedTableDir: string;
  if (isMetadataFileName(stripped.split('/').pop() ?? '')) {
    metadataLocation = stripped;
    via = 'metadata-file';
    const parts = stripped.split('/');
    openedTableDir = parts.slice(0, -2).join('/') || '.';
  } else {
    const located = await locateCurrentMetadata(io, stripped);
    metadataLocation = located.metadataLocation;
    via = located.via;
    openedTableDir = stripped;
  }
  const metadata = parseMetadataBytes(await io.read(metadataLocation), metadataLocation);

  // A table copied away from where it was written still names its old location everywhere.
  if (
    !options.io &&
    options.followOpenedLocation !== false &&
    new LocationMap(rules).apply(metadata.location) === normalizeLocation(metadata.location) &&
    io.map(metadata.location) !== io.map(openedTableDir)
  ) {
    io = fileIOWithMappings([...rules, { from: metadata.location, to: openedTableDir }], options.storage);
  }
  return { metadata, metadataLocation, io, via };
}

/** Live data and delete files of a snapshot (default: current), with the neutral model around them. */
export async function loadTableModel(
  table: IcebergTable,
  snapshotId?: bigint,
  /** How manifests are decoded (worker threads or this thread); the model is the same either way. */
  options: LiveFilesOptions = {},
): Promise<TableModel & { manifests: ManifestFile[] }> {
  const md = table.metadata;
  const id = snapshotId ?? md.currentSnapshotId;
  let files: { manifests: ManifestFile[]; dataFiles: TableModel['dataFiles']; deleteFiles: TableModel['deleteFiles'] } =
    {
      manifests: [],
      dataFiles: [],
      deleteFiles: [],
    };
  if (id !== undefined) files = await liveFilesOf(table.io, md, findSnapshot(md, id), allFieldsById(md), options);
  const model: TableModel & { manifests: ManifestFile[] } = {
    format: 'iceberg',
    formatVersion: md.formatVersion,
    location: md.location,
    metadataLocation: table.metadataLocation,
    schemas: md.schemas,
    currentSchemaId: md.currentSchemaId,
    specs: md.specs,
    defaultSpecId: md.defaultSpecId,
    properties: md.properties,
    snapshots: md.snapshots,
    refs: md.refs,
    lastSequenceNumber: md.lastSequenceNumber,
    dataFiles: files.dataFiles,
    deleteFiles: files.deleteFiles,
    manifests: files.manifests,
    sortOrders: md.sortOrders,
    defaultSortOrderId: md.defaultSortOrderId,
  };
  if (md.tableUuid) model.tableUuid = md.tableUuid;
  if (md.currentSnapshotId !== undefined) model.currentSnapshotId = md.currentSnapshotId;
  return model;
}

export function requireSnapshot(md: IcebergMetadata, text: string): bigint {
  if (!/^-?\d+$/.test(text)) throw new FloeError('InvalidArgument', `snapshot id "${text}" is not an integer`);
  return findSnapshot(md, BigInt(text)).snapshotId;
}
