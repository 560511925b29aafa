/**
 * Shared plumbing of the destructive maintenance commands (expire, remove-orphans, rewrite-manifests):
 * opening the table with storage from the environment and `--location-map`, recognising its format, and
 * printing a report as text or JSON.
 */
import { FloeError } from '../errors.js';
import { FileIO, LocationMap, parseLocationMapSpec, type StorageConfig } from '../../connectors/storage/index.js';
import { StoreIO } from './store-io.js';
import { reportToJson, reportToText, type MaintenanceReport } from './report.js';
import type { MaintainedTable } from '../../connectors/iceberg/expire-table.js';

export interface TableAccessCli {
  locationMap?: string[];
  catalog?: string;
  catalogName?: string;
  token?: string;
  warehouse?: string;
  json?: boolean;
  dryRun?: boolean;
}

export function collectOption(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** S3 endpoint from the environment (FLOE_S3_ENDPOINT / AWS_ENDPOINT_URL[_S3]); AWS SDK credential chain. */
export function storageFromCli(o: TableAccessCli): StorageConfig {
  const endpoint = process.env.FLOE_S3_ENDPOINT ?? process.env.AWS_ENDPOINT_URL_S3 ?? process.env.AWS_ENDPOINT_URL;
  const pathStyle = process.env.FLOE_S3_PATH_STYLE ?? (endpoint ? 'true' : 'false');
  return {
    locationMap: new LocationMap((o.locationMap ?? []).map(parseLocationMapSpec)),
    s3: { ...(endpoint ? { endpoint } : {}), forcePathStyle: pathStyle === 'true' },
  };
}

export type TableFormat = 'iceberg' | 'paimon';

/** Iceberg: a metadata/ directory or a *.metadata.json; Paimon: snapshot/ and schema/ directories. */
export async function detectFormat(io: StoreIO, ref: string): Promise<TableFormat> {
  const stripped = ref.replace(/\/+$/, '');
  if (/\.metadata\.json(\.gz)?$/.test(stripped)) return 'iceberg';
  if ((await io.listNames(`${stripped}/schema`)).some((n) => n.startsWith('schema-'))) return 'paimon';
  if ((await io.listNames(`${stripped}/metadata`)).length > 0) return 'iceberg';
  throw new FloeError(
    'NotFound',
    `no Iceberg or Paimon table at ${ref} (neither metadata/ nor schema/ holds table files)`,
    { context: { table: ref } },
  );
}

export function newStoreIO(o: TableAccessCli): StoreIO {
  return new StoreIO(new FileIO(storageFromCli(o)));
}

export function parseNonNegativeInt(text: string, option: string): number {
  if (!/^\d+$/.test(text.trim()))
    throw new FloeError('InvalidArgument', `${option}: "${text}" is not a non-negative integer`);
  return Number(text);
}

export function parseSnapshotIds(text: string): bigint[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      if (!/^\d+$/.test(s)) throw new FloeError('InvalidArgument', `--snapshot-ids: "${s}" is not a snapshot id`);
      return BigInt(s);
    });
}

export function printReport(
  report: MaintenanceReport,
  json: boolean | undefined,
  write: (t: string) => void = (t) => process.stdout.write(t),
): void {
  write(json ? reportToJson(report) : reportToText(report));
  if (report.failed.length > 0) process.exitCode = 3;
}

/**
 * An Iceberg table named `ns.table` in `--catalog sql:<file>|rest:<url>`, opened for maintenance: it is read
 * and committed through the catalog (SQL compare-and-swap of metadata_location, or a REST commit), exactly
 * as `floe compact --catalog` does. Call `close()` when done.
 */
export async function openMaintainedViaCatalog(
  ref: string,
  o: TableAccessCli,
): Promise<{ table: MaintainedTable; close: () => void }> {
  const { openIcebergForWrite, requireCommitOps } = await import('../cli/table-access.js');
  const opened = await openIcebergForWrite(ref, o);
  try {
    const ops = requireCommitOps(opened);
    const io = new StoreIO(opened.files);
    const table: MaintainedTable = {
      io,
      tableLocation: opened.table.metadata.location,
      metadataLocation: opened.table.metadataLocation,
      metadata: opened.table.metadata,
      ops,
    };
    return { table, close: () => opened.files.destroy() };
  } catch (e) {
    opened.files.destroy();
    throw e;
  }
}
