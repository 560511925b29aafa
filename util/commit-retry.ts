/**
 * The one retry policy for optimistic commits (Iceberg's `commit.retry.*` table properties, with Iceberg's
 * defaults, and Paimon's commit loop): retry only a lost race (CommitConflict that says it is retryable),
 * at most `numRetries` times and within `totalTimeoutMs`, waiting min(maxWait, minWait·2^(n−1)) scaled by a
 * random factor in [0.5, 1) between attempts. A commit whose state is unknown is never retried.
 */
import { FloeError, isFloeError } from './errors.js';

export interface CommitRetryPolicy {
  numRetries: number;
  minWaitMs: number;
  maxWaitMs: number;
  totalTimeoutMs: number;
}

/** Iceberg's TableProperties defaults. */
export const ICEBERG_COMMIT_RETRY_DEFAULTS: CommitRetryPolicy = {
  numRetries: 4,
  minWaitMs: 100,
  maxWaitMs: 60_000,
  totalTimeoutMs: 1_800_000,
};

const KEYS: Record<keyof CommitRetryPolicy, string> = {
  numRetries: 'commit.retry.num-retries',
  minWaitMs: 'commit.retry.min-wait-ms',
  maxWaitMs: 'commit.retry.max-wait-ms',
  totalTimeoutMs: 'commit.retry.total-timeout-ms',
};

/**
 * The policy from Iceberg table properties. A value that is not a non-negative integer is refused (Java's
 * PropertyUtil would throw NumberFormatException) rather than silently replaced by a default.
 */
export function icebergCommitRetryPolicy(
  props: Readonly<Record<string, string | undefined>>,
  table: string,
): CommitRetryPolicy {
  const out = { ...ICEBERG_COMMIT_RETRY_DEFAULTS };
  for (const [field, key] of Object.entries(KEYS) as [keyof CommitRetryPolicy, string][]) {
    const raw = props[key];
    if (raw === undefined) continue;
    const text = String(raw).trim();
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      throw new FloeError(
        'InvalidArgument',
        `table ${table}: property ${key}=${JSON.stringify(raw)} is not a non-negative integer`,
        {
          context: { table, property: key, value: raw },
        },
      );
    }
    out[field] = Number(text);
  }
  if (out.maxWaitMs < out.minWaitMs) out.maxWaitMs = out.minWaitMs;
  return out;
}

export interface CommitLoopHooks {
  /** Called after the wait, before attempt `attempt + 1`; refresh the base here. */
  onRetry?: (attempt: number, error: FloeError) => void | Promise<void>;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export function commitBackoffMs(
  policy: CommitRetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const wait = Math.min(policy.maxWaitMs, policy.minWaitMs * 2 ** Math.min(attempt - 1, 30));
  return Math.floor(wait * (0.5 + random() / 2));
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A retryable lost race. Unknown commit states and non-retryable conflicts are final. */
export function isRetryableConflict(e: unknown): e is FloeError {
  return isFloeError(e, 'CommitConflict') && e.retryable && e.context.commitStateUnknown !== true;
}

/** Runs `attempt(1)`, `attempt(2)` … until one succeeds or a failure is not a retryable conflict. */
export async function runCommitLoop<T>(
  policy: CommitRetryPolicy,
  attempt: (n: number) => Promise<T>,
  hooks: CommitLoopHooks = {},
): Promise<T> {
  const now = hooks.now ?? Date.now;
  const sleep = hooks.sleep ?? defaultSleep;
  const started = now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (!isRetryableConflict(e) || n > policy.numRetries || now() - started > policy.totalTimeoutMs) throw e;
      await sleep(commitBackoffMs(policy, n, hooks.random));
      await hooks.onRetry?.(n, e);
    }
  }
}
