/**
 * Issue 13.11: exit 3 ("partial failure, the rest is committed") only when something was committed; a
 * failure that committed nothing is 1; the codes are the documented ones and the JSON status agrees.
 */
import { describe, expect, it } from 'vitest';
import { EXIT, exitCodeForError } from '../../src/app/exit-codes.js';
import { compactExitCode, type CompactResult } from '../../src/app/compact-result.js';
import { maintenanceExitCode } from '../../src/app/maintenance-result.js';
import { statusOf } from '../../src/app/result.js';
import { newReport } from '../../src/app/maintenance-report.js';
import { FloeError } from '../../util/errors.js';

const compact = (snapshots: string[], failed: number): CompactResult =>
  ({
    snapshots,
    failedTasks: Array.from({ length: failed }, (_v, i) => ({ id: `t${i}`, reason: 'boom' })),
  }) as unknown as CompactResult;

describe('exit codes', () => {
  it('are the documented numbers', () => {
    expect(EXIT).toEqual({ ok: 0, failed: 1, usage: 2, partial: 3, busy: 75, cancelled: 130 });
    expect([0, 1, 2, 3, 75, 130].map(statusOf)).toEqual([
      'ok',
      'failed',
      'usage-error',
      'partial',
      'busy',
      'cancelled',
    ]);
  });
  it('compact: 3 only when a snapshot was committed', () => {
    expect(compactExitCode(compact(['1'], 0))).toBe(0);
    expect(compactExitCode(compact(['1'], 1))).toBe(3);
    expect(compactExitCode(compact([], 2))).toBe(1);
  });
  it('maintenance: 3 when the metadata was committed or something was deleted, else 1', () => {
    const expire = newReport('expire', 't', false);
    expire.failed.push({ location: 'a', error: 'x' });
    expect(maintenanceExitCode(expire)).toBe(1);
    expire.details.newMetadata = 'v4.metadata.json';
    expect(maintenanceExitCode(expire)).toBe(3);
    const orphans = newReport('remove-orphans', 't', false);
    orphans.failed.push({ location: 'a', error: 'x' });
    expect(maintenanceExitCode(orphans)).toBe(1);
    orphans.deleted.push('b');
    expect(maintenanceExitCode(orphans)).toBe(3);
    expect(maintenanceExitCode(newReport('expire', 't', false))).toBe(0);
  });
  it('errors: usage 2, busy 75 (for the table lease), cancelled 130, the rest 1', () => {
    expect(exitCodeForError(new FloeError('InvalidArgument', 'x'))).toBe(2);
    expect(exitCodeForError(new FloeError('PreconditionFailed', 'x', { context: { busy: true } }))).toBe(75);
    expect(exitCodeForError(new FloeError('Internal', 'x', { context: { cancelled: true } }))).toBe(130);
    expect(exitCodeForError(new FloeError('NotFound', 'x'))).toBe(1);
    expect(exitCodeForError(new Error('x'))).toBe(1);
  });
});
