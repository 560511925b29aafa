/**
 * Does the S3 store honour conditional writes? A filesystem-table commit (Iceberg's next
 * `v<N>.metadata.json`, Paimon's next `snapshot-<N>`) is atomic only because the store refuses a second
 * create of the same key (`If-None-Match: *`). A store that ignores the header — older MinIO and Ceph RGW
 * releases, some gateways, a proxy that strips it — lets two writers both "win" version N, and one commit
 * is silently lost. So before the first such commit through a bucket floe learns what the store does, and
 * refuses to commit where it would be unsafe.
 *
 * What the store does comes from configuration (`S3ConnectionConfig.conditionalWrites`,
 * FLOE_S3_CONDITIONAL_WRITES) or from a probe: one hidden object under the table's own location is created,
 * created again (must be refused), replaced with a wrong and then the right ETag (`If-Match`), and removed.
 * The answer is remembered per endpoint and bucket for the life of the process (a probe costs five small
 * requests; it is not written to a cache file, so a store that changes behind the same endpoint — a proxy
 * put in front, an upgrade — is never judged by a stale answer).
 *
 * FLOE_S3_UNSAFE_COMMITS=1 (`S3ConnectionConfig.unsafeCommits`) skips the check: for a table only one
 * writer ever commits to. Local files and in-memory stores enforce create-if-absent themselves.
 */
import { randomUUID } from 'node:crypto';
import { FloeError, isFloeError } from '../../util/errors.js';
import type { ObjectStore } from './object-store.js';
import type { ResolvedLocation } from './file-io.js';

/** What the store does with conditional headers, as configured: `probe` (default) finds out. */
export type ConditionalWriteMode = 'probe' | 'honoured' | 'ignored';
export const CONDITIONAL_WRITE_MODES: readonly ConditionalWriteMode[] = ['probe', 'honoured', 'ignored'];

export interface ConditionalWriteSupport {
  /** `If-None-Match: *` refuses to create a key that exists. */
  create: boolean;
  /** `If-Match: <etag>` refuses a stale ETag and accepts the current one. */
  replace: boolean;
  source: 'probe' | 'configuration';
  /** What was seen, for messages ("a second create of the same key succeeded"). */
  detail: string;
}

/** The part of an S3 store the check needs (S3ObjectStore has it; other stores do not). */
export interface ProbedStore extends ObjectStore {
  readonly bucket: string;
  /** "endpoint http://127.0.0.1:9000" or "the AWS S3 endpoint in eu-west-1". */
  readonly endpointText: string;
  readonly conditionalWrites: ConditionalWriteMode;
  readonly unsafeCommits: boolean;
}

function isProbedStore(store: ObjectStore): store is ProbedStore {
  return typeof (store as Partial<ProbedStore>).endpointText === 'string' && 'conditionalWrites' in store;
}

const remembered = new Map<string, Promise<ConditionalWriteSupport>>();

/**
 * Whether the next filesystem commit or lease on `resolved` will probe the store first (an S3 store in probe
 * mode not yet probed in this process): the estimate counts the probe's requests (`CONDITIONAL_PROBE_REQUESTS`).
 */
export function conditionalProbeDue(resolved: Pick<ResolvedLocation, 'store'>, freshProcess = false): boolean {
  const { store } = resolved;
  if (!isProbedStore(store) || store.unsafeCommits || store.conditionalWrites !== 'probe') return false;
  return freshProcess || !remembered.has(`${store.endpointText}|${store.bucket}`);
}

/** The probe: create, create again (refused), HEAD for the ETag, replace with a wrong and the right ETag, delete. */
export const CONDITIONAL_PROBE_REQUESTS = { put: 4, head: 1, delete: 1 } as const;

/** Forgets what was learned (tests that point one endpoint at different servers). */
export function forgetConditionalWriteSupport(): void {
  remembered.clear();
}

/**
 * What `store` does with conditional writes, probing under `probeDir` (a key prefix without trailing
 * slash, inside the table) the first time this endpoint and bucket are asked about.
 */
export function conditionalWriteSupport(store: ProbedStore, probeDir: string): Promise<ConditionalWriteSupport> {
  if (store.conditionalWrites !== 'probe') {
    const honoured = store.conditionalWrites === 'honoured';
    return Promise.resolve({
      create: honoured,
      replace: honoured,
      source: 'configuration',
      detail: `configured as conditionalWrites=${store.conditionalWrites} (FLOE_S3_CONDITIONAL_WRITES)`,
    });
  }
  const id = `${store.endpointText}|${store.bucket}`;
  let known = remembered.get(id);
  if (!known) {
    known = probe(store, probeDir);
    remembered.set(id, known);
    known.catch(() => remembered.delete(id)); // a failed probe (no access, network) is asked again next time
  }
  return known;
}

const notImplemented = (e: unknown) =>
  isFloeError(e) && (e.context.status === 501 || e.context.code === 'NotImplemented');

async function probe(store: ProbedStore, probeDir: string): Promise<ConditionalWriteSupport> {
  // the store's temporary marker: readers never list it, remove-orphans collects it if a crash leaves it
  const key = `${probeDir ? `${probeDir}/` : ''}.conditional-write-probe.floe-tmp-${randomUUID()}`;
  const result = (create: boolean, replace: boolean, detail: string): ConditionalWriteSupport => ({
    create,
    replace,
    source: 'probe',
    detail,
  });
  try {
    try {
      await store.put(key, 'floe conditional-write probe 1', { ifNoneMatch: '*' });
    } catch (e) {
      if (notImplemented(e)) return result(false, false, 'it answers If-None-Match with NotImplemented');
      throw e;
    }
    let create: boolean;
    let createDetail: string;
    try {
      await store.put(key, 'floe conditional-write probe 2', { ifNoneMatch: '*' });
      create = false;
      createDetail = 'a second create of the same key (If-None-Match: *) succeeded';
    } catch (e) {
      if (isFloeError(e, 'PreconditionFailed')) {
        create = true;
        createDetail = 'a second create of the same key was refused (412)';
      } else if (notImplemented(e)) {
        create = false;
        createDetail = 'it answers If-None-Match with NotImplemented';
      } else throw e;
    }
    const replace = await probeReplace(store, key);
    return result(create, replace.honoured, `${createDetail}; ${replace.detail}`);
  } finally {
    await store.delete(key).catch(() => undefined);
  }
}

async function probeReplace(store: ProbedStore, key: string): Promise<{ honoured: boolean; detail: string }> {
  const { etag } = await store.head(key);
  try {
    await store.put(key, 'floe conditional-write probe 3', { ifMatch: '"0123456789abcdef0123456789abcdef"' });
    return { honoured: false, detail: 'a replace with a wrong ETag (If-Match) succeeded' };
  } catch (e) {
    if (notImplemented(e)) return { honoured: false, detail: 'it answers If-Match with NotImplemented' };
    if (!isFloeError(e, 'PreconditionFailed')) throw e;
  }
  try {
    await store.put(key, 'floe conditional-write probe 4', { ifMatch: etag });
    return { honoured: true, detail: 'If-Match refuses a wrong ETag and accepts the current one' };
  } catch (e) {
    if (!isFloeError(e, 'PreconditionFailed') && !notImplemented(e)) throw e;
    return { honoured: false, detail: 'If-Match refuses even the current ETag' };
  }
}

export type CommitFormat = 'Iceberg' | 'Paimon';

const INSTEAD: Record<CommitFormat, string> = {
  Iceberg:
    'Commit through a catalog, which swaps the metadata pointer atomically (--catalog sql:<sqlite file|postgresql url> or --catalog rest:<url>)',
  Paimon: 'Commit through a Paimon catalog that serialises commits with a lock (a JDBC catalog with lock.enabled=true)',
};
const OVERRIDE = 'set FLOE_S3_UNSAFE_COMMITS=1 (unsafe; docs/s3-stores.md)';

/**
 * Refuses what needs the store's conditional writes where they are not honoured: a filesystem-table commit
 * (`Iceberg`/`Paimon`: create-if-absent of the next version) or the table lease (`lease`: create-if-absent
 * and compare-and-swap on the ETag). Resolves when they are honoured, when the store is not S3, or with the
 * unsafe override. `resolved` is the table location's store and key (the probe goes under it).
 */
export async function requireConditionalCreate(
  resolved: ResolvedLocation,
  table: string,
  purpose: CommitFormat | 'lease',
): Promise<void> {
  const { store } = resolved;
  if (!isProbedStore(store) || store.unsafeCommits) return;
  const support = await conditionalWriteSupport(store, resolved.key.replace(/\/+$/, ''));
  const lease = purpose === 'lease';
  if (support.create && (!lease || support.replace)) return;
  const where = `the S3 store at ${store.endpointText} (bucket ${store.bucket})`;
  const message = lease
    ? `refusing to take the lease of table ${table}: ${where} does not honour conditional writes (${support.detail}), ` +
      "so floe's table lease (.floe/lease.json) could not keep two jobs apart; nothing was written. " +
      `Pass --no-lease if jobs on this table are coordinated elsewhere, or ${OVERRIDE}`
    : `refusing to commit ${purpose} table ${table}: ${where} does not honour conditional create (${support.detail}), ` +
      'so two concurrent commits could both succeed and one would be silently lost; nothing was committed. ' +
      `${INSTEAD[purpose]}, or, only if no other writer ever commits to this table, ${OVERRIDE}`;
  throw new FloeError('Unsupported', message, {
    context: {
      table,
      endpoint: store.endpointText,
      bucket: store.bucket,
      conditionalCreate: support.create,
      conditionalReplace: support.replace,
      source: support.source,
    },
  });
}
