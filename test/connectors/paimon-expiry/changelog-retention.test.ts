/**
 * Issue 15.6, changelog retention: when is a Paimon table's changelog lifecycle decoupled from its
 * snapshots? Java's ExpireConfig: an explicit changelog.* option above the effective snapshot one (the
 * run's flags override the snapshot options, not the changelog ones). Cases worked out from that rule.
 */
import { describe, expect, it } from 'vitest';
import { changelogDecoupledReason } from '../../../connectors/paimon/changelog-retention.js';

describe('changelog lifecycle decoupled (ExpireConfig.isChangelogDecoupled)', () => {
  it('no changelog options: never decoupled, whatever the snapshot retention', () => {
    expect(changelogDecoupledReason({})).toBeUndefined();
    expect(
      changelogDecoupledReason({ 'snapshot.num-retained.min': '1' }, { retainMin: 1, retainMax: 2 }),
    ).toBeUndefined();
  });
  it('changelog.num-retained.max above snapshot.num-retained.max (default Integer.MAX_VALUE)', () => {
    expect(changelogDecoupledReason({ 'changelog.num-retained.max': '50' })).toBeUndefined();
    expect(changelogDecoupledReason({ 'changelog.num-retained.max': '50', 'snapshot.num-retained.max': '20' })).toMatch(
      /changelog.num-retained.max=50 exceeds the snapshot retention \(20\)/,
    );
    expect(changelogDecoupledReason({ 'changelog.num-retained.max': '50' }, { retainMax: 49 })).toMatch(/exceeds/);
  });
  it('changelog.num-retained.min above the effective snapshot minimum (default 10; --retain-last overrides)', () => {
    expect(changelogDecoupledReason({ 'changelog.num-retained.min': '10' })).toBeUndefined();
    expect(changelogDecoupledReason({ 'changelog.num-retained.min': '11' })).toMatch(/num-retained.min=11/);
    expect(changelogDecoupledReason({ 'changelog.num-retained.min': '10' }, { retainMin: 3 })).toMatch(/\(3\)/);
  });
  it('changelog.time-retained above snapshot.time-retained (default 1 h) or the run cutoff', () => {
    expect(changelogDecoupledReason({ 'changelog.time-retained': '1 h' })).toBeUndefined();
    expect(changelogDecoupledReason({ 'changelog.time-retained': '2 h' })).toMatch(/changelog.time-retained=2 h/);
    expect(
      changelogDecoupledReason({ 'changelog.time-retained': '30 min' }, { nowMs: 10_000_000, olderThanMs: 9_000_000 }),
    ).toMatch(/exceeds the snapshot time retention \(1000000 ms\)/);
  });
});
