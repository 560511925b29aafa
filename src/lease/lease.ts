/**
 * Table lease: cross-process exclusion for floe's maintenance jobs on one table.
 *
 * One small JSON object per table, `<table>/.floe/lease.json`, holding who holds the table and until when.
 * - acquire: create-if-absent (`If-None-Match: *` on S3, exclusive create locally). When the object exists
 *   and its lease has expired (or was released), it is taken over by compare-and-swap on its ETag, so of
 *   two processes racing for a stale lease exactly one wins.
 * - renew: a heartbeat rewrites the object with a later expiry, again by CAS on the ETag it last wrote;
 *   a failed CAS means another process took the lease over (we were too slow), and the holder's `signal`
 *   aborts so its job stops before committing.
 * - release: CAS-writes the record as released (expiry = now). The object is never deleted: an unconditional
 *   delete could remove a lease another process had just taken over, and a released lease is simply free.
 *
 * Read order matters for takeover: HEAD (etag) before GET (content). If the content we read is newer than the
 * etag, the CAS fails; we never take over a live lease on the strength of an expired record.
 *
 * A lease bound to one process (the CLI's and `runMaintenanceJob`'s) also records that process (host, pid,
 * start time, boot id): when it is on this host and no longer running (killed by SIGKILL, the OOM killer),
 * its lease is stale at once instead of blocking the table for the rest of its TTL. A holder on another host
 * can only expire. Distributed runs' leases (taken by one process, renewed by others) record no process.
 *
 * Expiry compares timestamps written by the holder with the reader's clock; hosts are assumed to agree within
 * a small fraction of the TTL (default 60 s).
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { FloeError, isFloeError } from '../../util/errors.js';
import { currentProcessIdentity, processLiveness, type ProcessIdentity } from '../../util/process-identity.js';
import { createVerified } from '../../connectors/storage/create-verified.js';
import type { ObjectStore } from '../../connectors/storage/object-store.js';

/** Where a table's lease lives, relative to the table location. */
export const LEASE_FILE = '.floe/lease.json';
export const DEFAULT_LEASE_TTL_MS = 60_000;

export interface LeaseRecord {
  version: 1;
  table: string;
  /** Who holds it: `host:pid` by default, or what the caller names (a worker id). */
  holder: string;
  /** The run the lease was taken for (also carried into snapshot summaries by the distributed seam). */
  runId: string;
  job: string;
  /** Random per acquisition: identifies our own write when a response was lost. */
  token: string;
  acquiredAtMs: number;
  renewedAtMs: number;
  expiresAtMs: number;
  releasedAtMs?: number;
  /** The one process holding it, when the lease lives and dies with that process (see boundToProcess). */
  process?: ProcessIdentity;
}

/** A live-looking lease taken over because its holder's process is gone. */
export interface LeaseTakeover {
  table: string;
  holder: string;
  runId: string;
  job: string;
  why: string;
}

export interface LeaseOptions {
  /** The table (for the record and messages). */
  table: string;
  job: string;
  holder?: string;
  runId?: string;
  /** How long a lease lives without a heartbeat. */
  ttlMs?: number;
  /** Heartbeat period (default ttl/3); 0 turns the automatic heartbeat off (tests renew by hand). */
  heartbeatMs?: number;
  /** Clock (tests). */
  now?: () => number;
  /**
   * The lease is this process's alone (not continued by another process of a distributed run): record the
   * process, so that once it is gone from this host the next job takes the lease over without waiting.
   */
  boundToProcess?: boolean;
  /** Told when a lease whose holder process is gone was taken over (to log it). */
  onTakeover?: (t: LeaseTakeover) => void;
}

export function defaultHolder(): string {
  return `${hostname()}:${process.pid}`;
}

/** The error a second job gets: context.busy makes the CLI exit 75 (src/app/exit-codes.ts). */
export function tableBusy(table: string, held: LeaseRecord, location: string): FloeError {
  return new FloeError(
    'Transient',
    `table busy: ${table} is leased by ${held.holder} (run ${held.runId}, ${held.job}) until ${new Date(held.expiresAtMs).toISOString()}; nothing was written`,
    {
      context: {
        busy: true,
        table,
        holder: held.holder,
        runId: held.runId,
        job: held.job,
        expiresAt: new Date(held.expiresAtMs).toISOString(),
        file: location,
      },
      retryable: true,
    },
  );
}

function parseRecord(bytes: Uint8Array, location: string): LeaseRecord {
  let r: unknown;
  try {
    r = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new FloeError(
      'Corrupt',
      `lease file ${location} is not JSON: ${(e as Error).message}; remove it if no floe job is running`,
      { context: { file: location }, cause: e },
    );
  }
  const o = r as Partial<LeaseRecord>;
  if (
    typeof o !== 'object' ||
    o === null ||
    typeof o.holder !== 'string' ||
    typeof o.expiresAtMs !== 'number' ||
    typeof o.token !== 'string'
  ) {
    throw new FloeError(
      'Corrupt',
      `lease file ${location} lacks holder/expiresAtMs/token; remove it if no floe job is running`,
      { context: { file: location } },
    );
  }
  return o as LeaseRecord;
}

const encode = (r: LeaseRecord): Uint8Array => new TextEncoder().encode(`${JSON.stringify(r, null, 2)}\n`);

/** A lease this process holds. */
export class TableLease {
  private readonly controller = new AbortController();
  private timer: ReturnType<typeof setInterval> | undefined;
  private renewing: Promise<void> | undefined;
  private released = false;
  /** Set when this lease was taken over from a holder whose process is gone. */
  tookOver: LeaseTakeover | undefined;

  constructor(
    private readonly store: ObjectStore,
    readonly key: string,
    private record: LeaseRecord,
    private etag: string,
    private readonly ttlMs: number,
    private readonly now: () => number,
    heartbeatMs: number,
  ) {
    if (heartbeatMs > 0) {
      this.timer = setInterval(() => {
        if (!this.renewing)
          this.renewing = this.renew()
            .catch(() => {})
            .finally(() => (this.renewing = undefined));
      }, heartbeatMs);
      this.timer.unref?.();
    }
  }

  get runId(): string {
    return this.record.runId;
  }
  get holder(): string {
    return this.record.holder;
  }
  get expiresAtMs(): number {
    return this.record.expiresAtMs;
  }
  /** Aborts when the lease is lost (another process took it over); the job must stop before committing. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }
  get lost(): boolean {
    return this.controller.signal.aborted;
  }

  /** Extends the expiry by CAS; throws (and aborts `signal`) when the lease is no longer ours. */
  async renew(): Promise<void> {
    if (this.released)
      throw new FloeError('InvalidArgument', `lease ${this.store.describe(this.key)} was already released`);
    if (this.lost) throw this.lostError();
    const t = this.now();
    const next: LeaseRecord = { ...this.record, renewedAtMs: t, expiresAtMs: t + this.ttlMs };
    await this.casWrite(next);
  }

  /** Stops the heartbeat and leaves the lease as it is (another process of the same run continues it). */
  async detach(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.renewing;
  }

  /** Marks the lease free (idempotent). A lease already lost is left alone. */
  async release(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.released) return;
    this.released = true;
    await this.renewing;
    if (this.lost) return;
    const t = this.now();
    try {
      await this.casWrite({ ...this.record, renewedAtMs: t, expiresAtMs: t, releasedAtMs: t });
    } catch (e) {
      // lost meanwhile: someone else holds it now, nothing of ours to release
      if (!this.lost) throw e;
    }
  }

  private async casWrite(next: LeaseRecord): Promise<void> {
    const bytes = encode(next);
    try {
      const { etag } = await this.store.put(this.key, bytes, { ifMatch: this.etag });
      this.record = next;
      this.etag = etag;
      return;
    } catch (e) {
      if (!isFloeError(e, 'PreconditionFailed') && !isFloeError(e, 'NotFound')) throw e;
    }
    // A CAS refusal may be our own earlier write whose response was lost, or another holder of the same run
    // (the workers of one distributed run share its token) renewing at the same moment: the token says whose
    // it is. Same run → re-read and retry; a few rounds, since those renewals can keep racing each other.
    for (let round = 0; round < 8; round++) {
      try {
        const meta = await this.store.head(this.key);
        const current = parseRecord(await this.store.get(this.key), this.store.describe(this.key));
        if (
          current.token !== this.record.token ||
          current.releasedAtMs !== undefined ||
          current.expiresAtMs <= this.now()
        ) {
          this.controller.abort(this.lostError(current));
          break;
        }
        const { etag } = await this.store.put(this.key, bytes, { ifMatch: meta.etag });
        this.record = next;
        this.etag = etag;
        return;
      } catch (e) {
        if (isFloeError(e, 'PreconditionFailed')) continue; // changed between our read and our write: read again
        if (isFloeError(e, 'NotFound')) this.controller.abort(this.lostError());
        if (!this.lost) throw e;
        break;
      }
    }
    if (!this.lost) this.controller.abort(this.lostError());
    throw this.lostError();
  }

  private lostError(by?: LeaseRecord): FloeError {
    return new FloeError(
      'CommitConflict',
      `lost the lease on ${this.record.table} (run ${this.record.runId})${by ? `: now held by ${by.holder} (run ${by.runId})` : ''}; stopping before any commit`,
      { context: { leaseLost: true, table: this.record.table, file: this.store.describe(this.key) }, retryable: true },
    );
  }
}

/**
 * Takes the table's lease or throws the `table busy` error (context.busy). Nothing but the lease object is
 * ever written, and only when the table was free.
 */
export async function acquireTableLease(store: ObjectStore, key: string, options: LeaseOptions): Promise<TableLease> {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const heartbeatMs = options.heartbeatMs ?? Math.max(1, Math.floor(ttlMs / 3));
  const location = store.describe(key);
  const t = now();
  const record: LeaseRecord = {
    version: 1,
    table: options.table,
    holder: options.holder ?? defaultHolder(),
    runId: options.runId ?? randomUUID(),
    job: options.job,
    token: randomUUID(),
    acquiredAtMs: t,
    renewedAtMs: t,
    expiresAtMs: t + ttlMs,
    ...(options.boundToProcess ? { process: currentProcessIdentity() } : {}),
  };
  const bytes = encode(record);
  const make = (etag: string) => new TableLease(store, key, record, etag, ttlMs, now, heartbeatMs);
  try {
    await createVerified(
      {
        create: async () => void (await store.put(key, bytes, { ifNoneMatch: '*', contentType: 'application/json' })),
        read: () => store.get(key),
        location,
      },
      bytes,
    );
    return make((await store.head(key)).etag);
  } catch (e) {
    if (!(isFloeError(e, 'PreconditionFailed') && e.context.takenByOther === true)) throw e;
  }
  // the object exists: free (expired or released) → take it over by CAS; else busy
  let meta;
  try {
    meta = await store.head(key);
  } catch (e) {
    if (isFloeError(e, 'NotFound'))
      throw new FloeError('Transient', `lease ${location} vanished while acquiring it; retry`, {
        context: { file: location },
        retryable: true,
      });
    throw e;
  }
  const held = parseRecord(await store.get(key), location);
  let takeover: LeaseTakeover | undefined;
  if (held.releasedAtMs === undefined && held.expiresAtMs > now()) {
    const holderState = processLiveness(held.process);
    if (holderState.alive) throw tableBusy(options.table, held, location);
    takeover = { table: options.table, holder: held.holder, runId: held.runId, job: held.job, why: holderState.why };
  }
  const made = (etag: string) => {
    const lease = make(etag);
    if (takeover) {
      lease.tookOver = takeover;
      options.onTakeover?.(takeover);
    }
    return lease;
  };
  // One claim per stale record, created exclusively, picks the single process allowed to CAS: the local
  // store's If-Match is atomic only within a process, its exclusive create across processes too.
  // A claim whose winner died before its CAS is abandoned after a TTL: the next generation is claimed then.
  const claimPrefix = `${key}.claim-${held.token}-`;
  let generation = 0;
  for await (const c of store.list(claimPrefix)) {
    const n = Number(c.key.slice(claimPrefix.length));
    if (!Number.isInteger(n)) continue;
    if (c.lastModified.getTime() > now() - ttlMs) throw tableBusy(options.table, held, location);
    generation = Math.max(generation, n + 1);
  }
  const claimKey = `${claimPrefix}${generation}`;
  try {
    await store.put(claimKey, bytes, { ifNoneMatch: '*' });
  } catch (e) {
    if (isFloeError(e, 'PreconditionFailed'))
      throw tableBusy(options.table, (await readTableLease(store, key)) ?? held, location);
    throw e;
  }
  try {
    const { etag } = await store.put(key, bytes, { ifMatch: meta.etag, contentType: 'application/json' });
    // the stale record's token is gone now; a late contender's claim on it would fail its CAS anyway
    await store.deleteMany(Array.from({ length: generation + 1 }, (_, i) => `${claimPrefix}${i}`)).catch(() => {});
    return made(etag);
  } catch (e) {
    if (isFloeError(e, 'PreconditionFailed') || isFloeError(e, 'NotFound')) {
      // another process took it over (or released and re-took it) between our read and our CAS
      let winner: LeaseRecord | undefined;
      try {
        winner = parseRecord(await store.get(key), location);
      } catch {
        /* gone again: report the record we saw */
      }
      if (winner?.token === record.token) return made((await store.head(key)).etag);
      throw tableBusy(options.table, winner ?? held, location);
    }
    throw e;
  }
}

/** Reads the table's lease record without taking it (undefined when the table never had one). */
export async function readTableLease(store: ObjectStore, key: string): Promise<LeaseRecord | undefined> {
  try {
    return parseRecord(await store.get(key), store.describe(key));
  } catch (e) {
    if (isFloeError(e, 'NotFound')) return undefined;
    throw e;
  }
}

/**
 * Continues a lease taken for `runId` by another process of the same run (a distributed run: the enqueuer
 * takes it, rewrite jobs renew it, the commit job releases it). A lease held by another run is `table busy`.
 * An expired lease of this run that nobody took over is renewed by CAS.
 */
export async function adoptTableLease(
  store: ObjectStore,
  key: string,
  options: { runId: string; table: string; ttlMs?: number; heartbeatMs?: number; now?: () => number },
): Promise<TableLease> {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS;
  const location = store.describe(key);
  let meta;
  try {
    meta = await store.head(key);
  } catch (e) {
    if (isFloeError(e, 'NotFound'))
      throw new FloeError(
        'CommitConflict',
        `run ${options.runId} holds no lease on ${options.table}: ${location} is missing`,
        { context: { leaseLost: true, file: location }, retryable: false },
      );
    throw e;
  }
  const held = parseRecord(await store.get(key), location);
  const free = held.releasedAtMs !== undefined || held.expiresAtMs <= now();
  if (held.runId !== options.runId) {
    if (free)
      throw new FloeError(
        'CommitConflict',
        `the lease of run ${options.runId} on ${options.table} has ended (the table is free or was leased again)`,
        { context: { leaseLost: true, file: location }, retryable: false },
      );
    throw tableBusy(options.table, held, location);
  }
  if (held.releasedAtMs !== undefined)
    throw new FloeError('CommitConflict', `run ${options.runId} already released its lease on ${options.table}`, {
      context: { leaseLost: true, released: true, file: location },
      retryable: false,
    });
  // another process continues the run's lease: no single process's death ends it any more
  const { process: _bound, ...continued } = held;
  const lease = new TableLease(
    store,
    key,
    continued,
    meta.etag,
    ttlMs,
    now,
    options.heartbeatMs ?? Math.max(1, Math.floor(ttlMs / 3)),
  );
  await lease.renew();
  return lease;
}
