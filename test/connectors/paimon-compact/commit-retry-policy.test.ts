/**
 * Paimon's commit retry options as the one commit path (commit-compact.ts → util/commit-retry.ts)
 * reads them: Paimon's defaults, its duration grammar, and a bad value refused naming the option.
 */
import { describe, expect, it } from 'vitest';
import { paimonCommitRetryPolicy } from '../../../connectors/paimon/commit-compact.js';
import { isFloeError } from '../../../util/errors.js';

describe('paimonCommitRetryPolicy', () => {
  it("has Paimon's defaults: 10 retries, waits from 10 ms to 10 s, no timeout", () => {
    expect(paimonCommitRetryPolicy({}, 't')).toEqual({
      numRetries: 10,
      minWaitMs: 10,
      maxWaitMs: 10_000,
      totalTimeoutMs: Number.POSITIVE_INFINITY,
    });
  });

  it('reads commit.max-retries, commit.min-retry-wait, commit.max-retry-wait and commit.timeout', () => {
    const o = {
      'commit.max-retries': ' 3 ',
      'commit.min-retry-wait': '50 ms',
      'commit.max-retry-wait': '2 s',
      'commit.timeout': '1 min',
    };
    expect(paimonCommitRetryPolicy(o, 't')).toEqual({
      numRetries: 3,
      minWaitMs: 50,
      maxWaitMs: 2_000,
      totalTimeoutMs: 60_000,
    });
  });

  it('a bare number is milliseconds; the max wait is never below the min wait', () => {
    const p = paimonCommitRetryPolicy({ 'commit.min-retry-wait': '500', 'commit.max-retry-wait': '100' }, 't');
    expect(p.minWaitMs).toBe(500);
    expect(p.maxWaitMs).toBe(500);
  });

  it('an explicit maxRetries wins over the table option', () => {
    expect(paimonCommitRetryPolicy({ 'commit.max-retries': '7' }, 't', 0).numRetries).toBe(0);
  });

  it('refuses a commit.max-retries that is not a non-negative integer, naming table and option', () => {
    for (const bad of ['-1', 'ten', '1.5']) {
      let err: unknown;
      try {
        paimonCommitRetryPolicy({ 'commit.max-retries': bad }, '/wh/t');
      } catch (e) {
        err = e;
      }
      expect(isFloeError(err, 'InvalidArgument')).toBe(true);
      expect((err as Error).message).toMatch(/\/wh\/t.*commit\.max-retries/);
    }
  });

  it('refuses a duration it cannot read, naming the option', () => {
    expect(() => paimonCommitRetryPolicy({ 'commit.timeout': 'soon' }, '/wh/t')).toThrow(/commit\.timeout/);
  });
});
