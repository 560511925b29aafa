/**
 * Opening an Iceberg filesystem table for maintenance (expire, remove-orphans, rewrite-manifests): the one
 * FileIO that reads, commits and deletes through the shared storage layer, the current metadata, and
 * TableOperations that find the current version the way Java's HadoopTableOperations does (hint, listing,
 * probing forward) and publish the next `v<N+1>.metadata.json` with create-if-absent; a refresh that finds the
 * version it read last does not read it again (200,000 snapshots take seconds to parse).
 *
 * A table copied away from where it was written still names its old location in every path; unless a
 * --location-map rule already covers it, the old location is mapped to where the table was opened.
 */
import { FloeError } from '../../util/errors.js';
import { FileIO, LocationMap, normalizeLocation, type StorageConfig } from '../storage/index.js';
import { FilesystemTableOperations } from './commit-ops.js';
import type { RawMetadata } from './commit-metadata.js';
import type { TableOperations } from './transaction.js';
import { isMetadataFileName, locateCurrentMetadata } from './locate.js';
import { parseMetadataBytes, type IcebergMetadata } from './metadata.js';

export interface MaintainedTable {
  io: FileIO;
  /** The table directory as opened. */
  tableLocation: string;
  metadataLocation: string;
  metadata: IcebergMetadata;
  ops: TableOperations;
}

export interface MaintenanceOpenOptions {
  /** Storage (S3 endpoints, location map …); ignored when `fileIO` is given. */
  storage?: StorageConfig;
  /** Supply the FileIO (tests mount memory stores on it). Its location map may be extended. */
  fileIO?: FileIO;
  /** Don't map the metadata's own location to where the table was opened. */
  noFollowOpenedLocation?: boolean;
}

export async function openForMaintenance(ref: string, options: MaintenanceOpenOptions = {}): Promise<MaintainedTable> {
  const io = options.fileIO ?? new FileIO({ ...options.storage });
  const stripped = ref.replace(/\/+$/, '');
  const byFile = isMetadataFileName(stripped.split('/').pop() ?? '');
  const tableLocation = byFile ? stripped.split('/').slice(0, -2).join('/') || '.' : stripped;
  const metadataLocation = byFile ? stripped : (await locateCurrentMetadata(io, tableLocation)).metadataLocation;
  const metadata = parseMetadataBytes(await io.read(metadataLocation), metadataLocation);

  if (!options.noFollowOpenedLocation) {
    const own = normalizeLocation(metadata.location);
    const opened = normalizeLocation(tableLocation);
    const map = io.config.locationMap;
    const alreadyMapped = map !== undefined && map.apply(metadata.location) !== own;
    if (!alreadyMapped && own !== opened) {
      io.config.locationMap = new LocationMap([...(map?.mappings ?? []), { from: own, to: opened }]);
    }
  }
  const ops = filesystemOps(io, tableLocation, byFile ? metadataLocation : undefined, {
    location: metadataLocation,
    metadata,
  });
  return { io, tableLocation, metadataLocation, metadata, ops };
}

/**
 * TableOperations for a filesystem table: refresh locates the newest version (tolerating a missing or empty
 * version hint), commit is FilesystemTableOperations' atomic create of the next version.
 */
export function filesystemOps(
  io: FileIO,
  tableLocation: string,
  pinnedMetadata?: string,
  /** The version already read: a refresh that finds it current does not read and parse it again. */
  known?: { location: string; metadata: IcebergMetadata },
): TableOperations {
  // a vN.metadata.json is created once and never rewritten, so the newest one read stands for its location
  let last = known;
  return {
    async refresh(): Promise<{ metadata: RawMetadata; location: string }> {
      const location = pinnedMetadata ?? (await locateCurrentMetadata(io, tableLocation)).metadataLocation;
      if (last?.location !== location)
        last = { location, metadata: parseMetadataBytes(await io.read(location), location) };
      return { metadata: last.metadata.raw, location };
    },
    async commit(base, next): Promise<string> {
      if (pinnedMetadata !== undefined) {
        throw new FloeError(
          'Unsupported',
          `table opened by metadata file ${pinnedMetadata}: open the table directory (or its catalog) to commit`,
          {
            context: { file: pinnedMetadata },
          },
        );
      }
      const dir = base.location.slice(0, base.location.lastIndexOf('/'));
      return new FilesystemTableOperations(io, dir).commit(base, next);
    },
  };
}

/** gc.enabled=false means files may be shared with other tables: no command may delete any. */
export function assertGcEnabled(md: IcebergMetadata, table: string, command: string): void {
  const v = md.properties['gc.enabled'];
  if (v !== undefined && v.trim().toLowerCase() === 'false') {
    throw new FloeError(
      'PreconditionFailed',
      `${command} refused for ${table}: GC is disabled (table property gc.enabled=false), so its files may be shared with other tables and deleting them could corrupt those`,
      { context: { table, property: 'gc.enabled' } },
    );
  }
}

/** The directories floe writes metadata and data into: write.metadata.path / write.data.path or defaults. */
export function tableDirs(md: IcebergMetadata): { metadataDir: string; dataDir: string } {
  const loc = md.location.replace(/\/+$/, '');
  const trim = (s: string) => s.replace(/\/+$/, '');
  return {
    metadataDir: trim(md.properties['write.metadata.path'] ?? `${loc}/metadata`),
    dataDir: trim(
      md.properties['write.data.path'] ??
        md.properties['write.object-storage.path'] ??
        md.properties['write.folder-storage.path'] ??
        `${loc}/data`,
    ),
  };
}
