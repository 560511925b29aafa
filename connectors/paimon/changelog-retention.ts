/**
 * Paimon's changelog lifecycle (`changelog.num-retained.min/max`, `changelog.time-retained`). When a
 * table keeps changelog longer than snapshots (`ExpireConfig.isChangelogDecoupled`: an explicit changelog
 * option above the effective snapshot one), Java's ExpireSnapshotsImpl does not delete the changelog of an
 * expired snapshot: it writes `changelog/changelog-N` and leaves its files to ExpireChangelogImpl. floe
 * does the same (connectors/paimon/changelog-lifecycle.ts).
 */
import { parseDurationMs } from '../../util/units.js';

/** The effective snapshot retention of one expire run (table options, overridden by the run's flags). */
export interface SnapshotRetention {
  retainMin?: number;
  retainMax?: number;
  olderThanMs?: number;
  nowMs?: number;
}

const INT_MAX = 2147483647;
const duration = (text: string, option: string) =>
  parseDurationMs(text, { bare: 'ms', what: `table option ${option}` });

/** Why the changelog lifecycle is decoupled from snapshots (as Java decides it), or undefined. */
export function changelogDecoupledReason(
  options: Record<string, string>,
  run: SnapshotRetention = {},
): string | undefined {
  const num = (k: string, d: number) => (options[k] !== undefined ? Number(options[k]) : d);
  const snapMin = run.retainMin ?? num('snapshot.num-retained.min', 10);
  const snapMax = run.retainMax ?? num('snapshot.num-retained.max', INT_MAX);
  const now = run.nowMs ?? Date.now();
  const snapTime =
    run.olderThanMs !== undefined
      ? now - run.olderThanMs
      : duration(options['snapshot.time-retained'] ?? '1 h', 'snapshot.time-retained');
  const max = options['changelog.num-retained.max'];
  if (max !== undefined && Number(max) > snapMax)
    return `changelog.num-retained.max=${max} exceeds the snapshot retention (${snapMax})`;
  const min = options['changelog.num-retained.min'];
  if (min !== undefined && Number(min) > snapMin)
    return `changelog.num-retained.min=${min} exceeds snapshot.num-retained.min (${snapMin})`;
  const time = options['changelog.time-retained'];
  if (time !== undefined && duration(time, 'changelog.time-retained') > snapTime)
    return `changelog.time-retained=${time} exceeds the snapshot time retention (${snapTime} ms)`;
  return undefined;
}
