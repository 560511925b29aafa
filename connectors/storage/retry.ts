/**
 * Retries for storage requests: exponential backoff with full jitter, only for errors classified as
 * transient (throttling, 5xx, connection resets, timeouts), and a per-attempt timeout that aborts the
 * request. Anything else (404, 403, 412 …) fails on the first attempt.
 */
import { FloeError } from '../../util/errors.js';

export interface RetryPolicy {
  /** Total attempts including the first. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** Per-attempt timeout; the attempt's AbortSignal fires when it elapses. 0 disables it. */
  timeoutMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  baseDelayMs: 100,
  maxDelayMs: 10_000,
  timeoutMs: 120_000,
};

export interface RetryHooks {
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRetry?: (error: FloeError, attempt: number, delayMs: number) => void;
}

/** Full-jitter backoff: uniform in [0, min(max, base·2^attempt)). */
export function backoffDelay(attempt: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or attempts run out. `classify`
 * turns whatever the attempt threw (including the timeout's abort) into a FloeError.
 */
export async function withRetry<T>(
  attempt: (signal: AbortSignal) => Promise<T>,
  classify: (error: unknown, timedOut: boolean) => FloeError,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  hooks: RetryHooks = {},
): Promise<T> {
  const sleep = hooks.sleep ?? defaultSleep;
  for (let n = 0; ; n++) {
    const controller = new AbortController();
    let timedOut = false;
    const timer =
      policy.timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true;
            controller.abort(new Error(`request timed out after ${policy.timeoutMs} ms`));
          }, policy.timeoutMs)
        : undefined;
    try {
      return await raceAbort(attempt(controller.signal), controller.signal);
    } catch (raw) {
      const error = classify(raw, timedOut);
      if (!error.retryable || n + 1 >= policy.maxAttempts) {
        if (n > 0 && error.retryable) {
          throw new FloeError(error.kind, `${error.message} (gave up after ${n + 1} attempts)`, {
            context: { ...error.context, attempts: n + 1 },
            retryable: true,
            cause: error.cause ?? raw,
          });
        }
        throw error;
      }
      const delay = backoffDelay(n, policy, hooks.random);
      hooks.onRetry?.(error, n + 1, delay);
      await sleep(delay);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

/** Makes a timeout effective even for work that ignores its signal (e.g. a stuck fake client). */
function raceAbort<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/** Node/system error codes that mean the connection broke mid-request: safe to retry. */
const TRANSIENT_NETWORK_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
]);

export function isTransientNetworkError(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TRANSIENT_NETWORK_CODES.has(code)) return true;
    const name = (e as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'RequestTimeout') return true;
  }
  return false;
}
