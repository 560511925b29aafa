/**
 * The one commit retry policy (issue 10): Iceberg's commit.retry.* with Iceberg's defaults, non-numeric
 * values refused with the property named, exponential backoff with jitter, and only retryable lost races
 * retried — never a commit whose state is unknown.
 */
import { describe, expect, it } from 'vitest';
import { FloeError, isFloeError } from '../../util/errors.js';
import {
  ICEBERG_COMMIT_RETRY_DEFAULTS,
  commitBackoffMs,
  icebergCommitRetryPolicy,
  runCommitLoop,
} from '../../util/commit-retry.js';
import { commitStateUnknown } from '../../connectors/commit-state.js';

describe('icebergCommitRetryPolicy', () => {
  it("defaults to Iceberg's 4 / 100 / 60000 / 1800000", () => {
    expect(icebergCommitRetryPolicy({}, 't')).toEqual({
      numRetries: 4,
      minWaitMs: 100,
      maxWaitMs: 60_000,
      totalTimeoutMs: 1_800_000,
    });
    expect(ICEBERG_COMMIT_RETRY_DEFAULTS.numRetries).toBe(4);
  });

  it('reads the four properties', () => {
    const p = icebergCommitRetryPolicy(
      {
        'commit.retry.num-retries': '7',
        'commit.retry.min-wait-ms': '5',
        'commit.retry.max-wait-ms': '50',
        'commit.retry.total-timeout-ms': '1000',
      },
      't',
    );
    expect(p).toEqual({ numRetries: 7, minWaitMs: 5, maxWaitMs: 50, totalTimeoutMs: 1000 });
  });

  it.each(['abc', '-1', '1.5', '', '4x'])('refuses %j with an error naming the property and table', (v) => {
    const e = (() => {
      try {
        icebergCommitRetryPolicy({ 'commit.retry.num-retries': v }, 's3://b/db/t');
      } catch (x) {
        return x;
      }
      return undefined;
    })();
    expect(isFloeError(e, 'InvalidArgument')).toBe(true);
    expect((e as Error).message).toContain('commit.retry.num-retries');
    expect((e as Error).message).toContain('s3://b/db/t');
  });
});

describe('runCommitLoop', () => {
  const conflict = () => new FloeError('CommitConflict', 'lost the race');
  const policy = { numRetries: 3, minWaitMs: 100, maxWaitMs: 250, totalTimeoutMs: 1_000_000 };

  it('retries a lost race with exponential, capped, jittered waits, at most numRetries times', async () => {
    const waits: number[] = [];
    let n = 0;
    const e = await runCommitLoop(
      policy,
      async () => {
        n++;
        throw conflict();
      },
      { sleep: async (ms) => void waits.push(ms), random: () => 0.999 },
    ).catch((x: unknown) => x);
    expect(isFloeError(e, 'CommitConflict')).toBe(true);
    expect(n).toBe(4);
    expect(waits).toEqual([99, 199, 249]);
    expect(commitBackoffMs(policy, 1, () => 0)).toBe(50); // jitter: half the wait at the low end
  });

  it('never retries an unknown commit state or a non-retryable failure', async () => {
    for (const err of [
      commitStateUnknown('lost answer'),
      new FloeError('CommitConflict', 'abandoned', { retryable: false }),
      new FloeError('Transient', 'io'),
    ]) {
      let n = 0;
      await runCommitLoop(
        policy,
        async () => {
          n++;
          throw err;
        },
        { sleep: async () => undefined },
      ).catch(() => undefined);
      expect(n).toBe(1);
    }
  });

  it('stops after the total timeout and refreshes via onRetry between attempts', async () => {
    let clock = 0;
    const seen: number[] = [];
    let n = 0;
    await runCommitLoop(
      { ...policy, numRetries: 100, totalTimeoutMs: 500 },
      async () => {
        n++;
        clock += 200;
        throw conflict();
      },
      { now: () => clock, sleep: async () => undefined, onRetry: (a) => void seen.push(a) },
    ).catch(() => undefined);
    expect(n).toBe(3);
    expect(seen).toEqual([1, 2]);
  });

  it('returns the first success', async () => {
    let n = 0;
    expect(
      await runCommitLoop(policy, async (a) => (++n < 2 ? Promise.reject(conflict()) : `ok@${a}`), {
        sleep: async () => undefined,
      }),
    ).toBe('ok@2');
  });
});
