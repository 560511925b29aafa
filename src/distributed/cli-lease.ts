/**
 * The table lease as the CLI commands and `runMaintenanceJob` take it: from a table reference (a path, a
 * metadata file, or `<ns>.<table>` with a catalog) and the command's access options. Dry runs take no lease
 * (they write nothing, so they exclude nobody); `--no-lease` / `lease: false` turns it off.
 */
import { newFileIO, storageFromCli, type TableAccessCli } from '../maintenance/cli-support.js';
import { isPaimonCatalogSpec, openPaimonCatalog } from '../../connectors/catalog/paimon-catalog.js';
import { locateCurrentMetadata } from '../../connectors/iceberg/locate.js';
import { parseMetadataBytes } from '../../connectors/iceberg/metadata.js';
import { withTableLease, type LeaseScope } from './table-lease.js';
import type { LeaseTakeover } from './lease.js';

export interface LeaseCliOptions extends TableAccessCli {
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
export async function tableLocationOf(ref: string, o: TableAccessCli): Promise<string> {
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
    const { openIcebergForWrite } = await import('../../connectors/iceberg/open-for-write.js');
    const opened = await openIcebergForWrite(ref, o);
    try {
      return opened.table.metadata.location;
    } finally {
      opened.files.destroy();
    }
  }
  const stripped = ref.replace(/\/+$/, '');
  const m = /^(.*)\/metadata\/[^/]+\.metadata\.json(\.gz)?$/.exec(stripped);
  return m ? m[1]! : stripped;
}

/**
 * The lease file lives under the table, so it may only be written once a table is known to be there: a
 * mistyped path must get "does not exist", not a fresh `.floe/` directory, and an Iceberg table whose current
 * metadata breaks its invariants is refused before anything is written. Throws the reader's own message.
 */
async function requireTableAt(location: string, o: TableAccessCli): Promise<void> {
  const io = newFileIO(o);
  try {
    if ((await io.listNames(`${location}/schema`)).some((n) => /^schema-\d+$/.test(n))) return;
    const { metadataLocation } = await locateCurrentMetadata(io, location);
    parseMetadataBytes(await io.read(metadataLocation), metadataLocation);
  } finally {
    io.destroy();
  }
}

/** Runs `fn` holding the lease of table `ref`, unless it is a dry run or the lease is turned off. */
export async function withCliLease<T>(
  ref: string,
  o: LeaseCliOptions,
  job: string,
  fn: (scope: LeaseScope) => Promise<T>,
): Promise<T> {
  if (o.lease === false || o.dryRun) return fn({});
  const location = await tableLocationOf(ref, o);
  if (!o.catalog) await requireTableAt(location, o);
  return withTableLease(
    location,
    {
      job,
      storage: storageFromCli(o),
      ...(o.leaseHolder ? { holder: o.leaseHolder } : {}),
      ...(o.runId ? { runId: o.runId } : {}),
      onTakeover: o.onLeaseTakeover ?? ((t) => void process.stderr.write(`floe: warning: ${takeoverMessage(t)}\n`)),
    },
    fn,
  );
}

export const NO_LEASE_HELP =
  'do not take the table lease (<table>/.floe/lease.json); only when something else keeps two jobs off one table';
