/**
 * Holding a table's lease around one maintenance job — the one helper the CLI commands, `runMaintenanceJob`
 * and the engine bindings share. The lease file sits under the table location (`<table>/.floe/lease.json`),
 * resolved through the same FileIO (S3 endpoints, location map) the job uses.
 */
import { FileIO, type StorageConfig } from '../../connectors/storage/index.js';
import { acquireTableLease, LEASE_FILE, type LeaseOptions, type TableLease } from './lease.js';

export interface WithLeaseOptions extends Omit<LeaseOptions, 'table'> {
  /** false: run without a lease (users who coordinate elsewhere: `--no-lease`, `lease: false`). */
  enabled?: boolean;
  /** An existing FileIO (tests mount memory stores); else one is made from `storage` and closed after. */
  fileIO?: FileIO;
  storage?: StorageConfig;
}

/** What the job sees: the lease's run id and a signal that aborts when the lease is lost. */
export interface LeaseScope {
  lease?: TableLease;
  runId?: string;
  signal?: AbortSignal;
}

export function leaseLocation(tableLocation: string): string {
  return `${tableLocation.replace(/\/+$/, '')}/${LEASE_FILE}`;
}

/**
 * Runs `fn` holding the lease of the table at `tableLocation`; releases it after, whatever happens. A table
 * leased by another job throws `table busy …` (FloeError, context.busy → exit 75) before `fn` runs.
 */
export async function withTableLease<T>(
  tableLocation: string,
  options: WithLeaseOptions,
  fn: (scope: LeaseScope) => Promise<T>,
): Promise<T> {
  if (options.enabled === false) return fn({});
  const own = options.fileIO ? undefined : new FileIO(options.storage ?? {});
  const io = options.fileIO ?? own!;
  try {
    // a lease is create-if-absent plus compare-and-swap: refused where the store ignores them
    await io.requireConditionalCreate(tableLocation, 'lease');
    const { store, key } = io.resolve(leaseLocation(tableLocation));
    // held by this process alone: once it is gone from this host, the next job takes the lease over at once
    const lease = await acquireTableLease(store, key, { boundToProcess: true, ...options, table: tableLocation });
    try {
      return await fn({ lease, runId: lease.runId, signal: lease.signal });
    } finally {
      await lease.release().catch(() => {
        // the lease expires on its own; a failed release only delays the next job by the TTL
      });
    }
  } finally {
    own?.destroy();
  }
}

/** `signal` and the lease's, as one (either aborts the job). */
export function withLeaseSignal(signal: AbortSignal | undefined, scope: LeaseScope): AbortSignal | undefined {
  const all = [signal, scope.signal].filter((s): s is AbortSignal => s !== undefined);
  if (all.length <= 1) return all[0];
  return AbortSignal.any(all);
}

/** The store and key of a table's lease file, with the FileIO to close after. */
export function leaseObject(
  tableLocation: string,
  storage: StorageConfig = {},
): { store: import('../../connectors/storage/index.js').ObjectStore; key: string; close: () => void } {
  const io = new FileIO(storage);
  const { store, key } = io.resolve(leaseLocation(tableLocation));
  return { store, key, close: () => io.destroy() };
}
