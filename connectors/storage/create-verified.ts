/**
 * Create-if-absent whose outcome is never guessed.
 *
 * A conditional PUT can reach the server and be applied while its response is lost (a 500, a reset, a
 * timeout). The retry — ours or an SDK's — then meets our own object and gets 412, and a naive caller takes
 * its own write for a competitor's. Every object floe creates has unique bytes (commit files carry a
 * random commit id / uuid, data and manifest files unique names and content), so "the stored object is
 * byte for byte what we sent" identifies our own write. Rules:
 * - 412 → read the object back: equal → ours (success); different → someone else's (PreconditionFailed);
 * - an ambiguous failure (5xx, reset, timeout: anything but a refusal such as 403/400) → read back: equal →
 *   ours; different → someone else's; absent → create once more (still conditional, so a late copy of the
 *   first request and the second cannot both win), then decide the same way;
 * - a failure the store marks `notStored` (a local write that failed before its file was linked into place,
 *   e.g. disk full) stored nothing: thrown as it came, a definite failure;
 * - whenever the read-back itself fails, the outcome is unknown: `outcomeUnknown` in the error's context,
 *   and the caller must keep every file the object would reference.
 */
import { createHash } from 'node:crypto';
import { FloeError, isFloeError } from '../../util/errors.js';
import type { ObjectStore } from './object-store.js';

/** How a verified create ended when it did not throw. */
export type CreateOutcome = 'created' | 'found-ours';

export interface VerifiedCreateTarget {
  /** Conditional create (If-None-Match: *); PreconditionFailed FloeError when the object exists. */
  create(): Promise<void>;
  /** The stored bytes; NotFound FloeError when absent. */
  read(): Promise<Uint8Array>;
  /** For messages. */
  location: string;
}

/** Kinds of failure that mean the request was refused, so nothing was stored. */
const REFUSED = new Set(['AccessDenied', 'InvalidArgument', 'Unsupported', 'NotFound']);

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return (
    a.byteLength === b.byteLength &&
    Buffer.compare(
      Buffer.from(a.buffer, a.byteOffset, a.byteLength),
      Buffer.from(b.buffer, b.byteOffset, b.byteLength),
    ) === 0
  );
}

export function isOutcomeUnknown(e: unknown): boolean {
  return isFloeError(e) && e.context.outcomeUnknown === true;
}

function unknown(location: string, why: string, cause: unknown): FloeError {
  return new FloeError('Transient', `create of ${location}: outcome unknown (${why})`, {
    context: { file: location, outcomeUnknown: true },
    retryable: false,
    cause,
  });
}

function taken(location: string, cause?: unknown): FloeError {
  return new FloeError(
    'PreconditionFailed',
    `conditional write to ${location} refused: another writer created it (its content differs from ours)`,
    {
      context: { file: location, takenByOther: true },
      cause,
    },
  );
}

type Stored = { kind: 'ours' } | { kind: 'other' } | { kind: 'absent' } | { kind: 'unreadable'; error: unknown };

async function inspect(target: VerifiedCreateTarget, bytes: Uint8Array): Promise<Stored> {
  try {
    return bytesEqual(await target.read(), bytes) ? { kind: 'ours' } : { kind: 'other' };
  } catch (e) {
    if (isFloeError(e, 'NotFound')) return { kind: 'absent' };
    return { kind: 'unreadable', error: e };
  }
}

/**
 * Creates `bytes` at the target unless it exists. Resolves 'created' or 'found-ours'; throws
 * PreconditionFailed (context.takenByOther) when another writer's object is there, a refusal error as it
 * came when nothing was stored, and an `outcomeUnknown` error when it cannot tell.
 */
export async function createVerified(target: VerifiedCreateTarget, bytes: Uint8Array): Promise<CreateOutcome> {
  let lastAmbiguous: unknown;
  for (let round = 0; round < 2; round++) {
    try {
      await target.create();
      return 'created';
    } catch (e) {
      const conflict = isFloeError(e, 'PreconditionFailed');
      if (!conflict && isFloeError(e) && REFUSED.has(e.kind)) throw e;
      // the store knows nothing was stored (a local write that failed before its file was put in place)
      if (isFloeError(e) && e.context.notStored === true) throw e;
      const stored = await inspect(target, bytes);
      if (stored.kind === 'ours') return 'found-ours';
      if (stored.kind === 'other') throw taken(target.location, e);
      if (stored.kind === 'unreadable')
        throw unknown(target.location, `cannot read it back: ${(stored.error as Error).message}`, e);
      // absent: a 412 for a missing object means it was removed meanwhile; an ambiguous failure may simply not have applied
      if (conflict) throw unknown(target.location, 'the store refused the create but the object is missing', e);
      lastAmbiguous = e;
    }
  }
  throw unknown(
    target.location,
    `the create failed twice and the object is absent: ${(lastAmbiguous as Error).message}`,
    lastAmbiguous,
  );
}

/**
 * The stored object's ETag when the object at `key` holds exactly `bytes`, else undefined: size first
 * (cheap), then the ETag when it is the MD5 of the content (S3 single-part uploads without KMS), else the
 * bytes themselves.
 */
export async function storedObjectMatches(
  store: ObjectStore,
  key: string,
  bytes: Uint8Array,
): Promise<string | undefined> {
  const meta = await store.head(key);
  if (meta.size !== bytes.byteLength) return undefined;
  const etag = meta.etag.replace(/^W\//, '').replace(/"/g, '');
  if (/^[0-9a-f]{32}$/i.test(etag) && createHash('md5').update(bytes).digest('hex') === etag.toLowerCase())
    return meta.etag;
  return bytesEqual(await store.get(key), bytes) ? meta.etag : undefined;
}
