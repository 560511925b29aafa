/**
 * The table lease around one maintenance job, taken here for every job (compact, expire, remove-orphans,
 * rewrite-manifests, expire-partitions), whether the CLI, `runMaintenanceJob` or `floe serve` runs it: from a
 * table reference (a path, a metadata file, or `<ns>.<table>` with a catalog) and the job's access options.
 * Dry runs take no lease (they write nothing, so they exclude nobody); `--no-lease` / `lease: false` turns it
 * off. The engine bindings hold a run's lease across machines instead (src/distributed/run-support.ts).
 */
import type { AccessOptions } from '../../connectors/iceberg/open-for-write.js';
import { fileIOFromEnv, storageConfigFromSpecs } from '../../connectors/storage/env.js';
import { isPaimonCatalogSpec, openPaimonCatalog } from '../../connectors/catalog/paimon-catalog.js';
import { locateCurrentMetadata } from '../../connectors/iceberg/locate.js';
import { parseMetadataBytes } from '../../connectors/iceberg/metadata.js';
import { detectTableFormat } from '../../connectors/table-format.js';
import type { FileIO } from '../../connectors/storage/index.js';
import { withTableLease, type LeaseScope } from './table-lease.js';
import type { LeaseTakeover } from './lease.js';

export interface JobLeaseOptions extends AccessOptions {
  /** A dry run takes no lease. */
  dryRun?: boolean;
  /** commander's `--no-lease` sets false. */
  lease?: boolean;
  /** Names the holder in the lease file (default host:pid). */
  leaseHolder?: string;
  /** Run id to record (the distributed bindings pass theirs). */
  runId?: string;
  /** Told when the lease of a dead process on this host was taken over (default: a warning on stderr). */
  onLeaseTakeover?: (t: LeaseTakeover) => void;
}

/** The line that says a dead holder's lease was taken over. */
export function takeoverMessage(t: LeaseTakeover): string {
  return `took over the lease of ${t.table} from ${t.holder} (run ${t.runId}, ${t.job}): ${t.why}`;
}

/** The table directory a reference names: a metadata file's table, or the catalog's recorded location. */
export async function tableLocationOf(ref: string, o: AccessOptions): Promise<string> {
  if (isPaimonCatalogSpec(o.catalog)) {
    const catalog = await openPaimonCatalog(o.catalog, {
      ...(o.warehouse ? { warehouse: o.warehouse } : {}),
      ...(o.catalogName ? { catalogKey: o.catalogName } : {}),
      ...(o.catalogProperties ? { catalogPropertiesFile: o.catalogProperties } : {}),
      ...(o.catalogPropertyValues ? { catalogPropertyValues: o.catalogPropertyValues } : {}),
      ...(o.token !== undefined && o.catalog.startsWith('paimon-rest:') ? { token: o.token } : {}), // refused there
    });
    try {
      return (await catalog.loadTable(ref)).location;
    } finally {
      await catalog.close();
    }
  }
  if (o.catalog) {
    const target = await icebergCatalogTarget(ref, o);
    target.fileIO.destroy();
    return target.location;
  }
  const stripped = ref.replace(/\/+$/, '');
  const m = /^(.*)\/metadata\/[^/]+\.metadata\.json(\.gz)?$/.exec(stripped);
  return m ? m[1]! : stripped;
}

/**
 * An Iceberg catalog table's location with the FileIO the catalog gave for it: its vended credentials (if
 * any) are the only ones that may reach the table's files, so the lease is written through it too.
 */
async function icebergCatalogTarget(ref: string, o: AccessOptions): Promise<{ location: string; fileIO: FileIO }> {
  const { openIcebergForWrite } = await import('../../connectors/iceberg/open-for-write.js');
  const opened = await openIcebergForWrite(ref, o);
  return { location: opened.table.metadata.location, fileIO: opened.files };
}

/**
 * The lease file lives under the table, so it may only be written once a table is known to be there: a
 * mistyped path must get "does not exist", not a fresh `.floe/` directory, and an Iceberg table whose current
 * metadata breaks its invariants is refused before anything is written. Throws the reader's own message.
 */
async function requireTableAt(location: string, o: AccessOptions): Promise<void> {
  const io = fileIOFromEnv(o.locationMap);
  try {
    if ((await detectTableFormat(location, io)) === 'paimon') return;
    const { metadataLocation } = await locateCurrentMetadata(io, location);
    parseMetadataBytes(await io.read(metadataLocation), metadataLocation);
  } finally {
    io.destroy();
  }
}

/**
 * Runs `fn` holding the lease of table `ref`, unless it is a dry run or the lease is turned off. `fn` gets
 * `signal` and the lease's own as one signal (either aborts the job).
 */
export async function withJobLease<T>(
  ref: string,
  o: JobLeaseOptions,
  job: string,
  fn: (scope: LeaseScope) => Promise<T>,
): Promise<T> {
  if (o.lease === false || o.dryRun) return fn({});
  // a catalog table's lease is written through the FileIO the catalog gave (its vended credentials)
  const iceberg = o.catalog && !isPaimonCatalogSpec(o.catalog) ? await icebergCatalogTarget(ref, o) : undefined;
  try {
    const location = iceberg?.location ?? (await tableLocationOf(ref, o));
    if (!o.catalog) await requireTableAt(location, o);
    return await withTableLease(
      location,
      {
        job,
        ...(iceberg ? { fileIO: iceberg.fileIO } : { storage: storageConfigFromSpecs(o.locationMap) }),
        ...(o.leaseHolder ? { holder: o.leaseHolder } : {}),
        ...(o.runId ? { runId: o.runId } : {}),
        onTakeover: o.onLeaseTakeover ?? ((t) => void process.stderr.write(`floe: warning: ${takeoverMessage(t)}\n`)),
      },
      fn,
    );
  } finally {
    iceberg?.fileIO.destroy();
  }
}

export const NO_LEASE_HELP =
  'do not take the table lease (<table>/.floe/lease.json); only when something else keeps two jobs off one table';
