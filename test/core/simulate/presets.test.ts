/**
 * The built-in presets run end to end with the real planners. Assertions are properties of the
 * workload, not numbers copied from a run.
 */
import { describe, expect, it } from 'vitest';
import { getPreset, simulate, type PolicyResult } from '../../../src/core/simulate/index.js';

const KiB = 1024;

function byName(results: PolicyResult[], name: string): PolicyResult {
  const r = results.find((x) => x.policy === name);
  if (!r) throw new Error(`no result for ${name}`);
  return r;
}

describe('append-1h preset', () => {
  const preset = getPreset('append-1h');
  const report = simulate(preset.stream, preset.policies);

  it('ingests 8 writers × 60 commits × 6 KiB', () => {
    for (const r of report.results) expect(r.bytesIngested).toBe(8 * 60 * 6 * KiB);
    expect(report.stream.commits).toBe(480);
  });

  it('every plan is sound (no resurrected rows, no missing inputs)', () => {
    for (const r of report.results) expect(r.violations, r.policy).toEqual([]);
  });

  it('without compaction the table holds every file written', () => {
    const none = byName(report.results, 'none');
    expect(none.liveDataFiles.final).toBe(480);
    expect(none.compactionBytesWritten).toBe(0);
  });

  it('tiered compaction keeps fewer live files than no compaction, at every minute after the first trigger', () => {
    const none = byName(report.results, 'none');
    for (const name of ['floe-tiered', 'amoro-trigger40-5m']) {
      const tiered = byName(report.results, name);
      expect(tiered.liveDataFiles.mean).toBeLessThan(none.liveDataFiles.mean);
      expect(tiered.liveDataFiles.max).toBeLessThan(none.liveDataFiles.max);
      expect(tiered.liveDataFiles.final).toBeLessThan(none.liveDataFiles.final);
      expect(tiered.compactionRuns).toBeGreaterThan(0);
    }
  });

  it('a once-an-hour bin-pack rewrites each ingested byte exactly once', () => {
    // All 480 files are under target, so the single run at minute 60 merges all of them into one file.
    const hourly = byName(report.results, 'spark-binpack-60m');
    expect(hourly.compactionRuns).toBe(1);
    expect(hourly.compactionBytesWritten).toBe(hourly.bytesIngested);
    expect(hourly.writeAmplification).toBe(1);
    expect(hourly.liveDataFiles.final).toBe(1);
  });

  it('size-tiered fragment merging beats Amoro on both axes: fewer rewritten bytes and fewer live files', () => {
    // Amoro re-merges the grown output with every new batch of fragments; floe merges a grown fragment again
    // only once as many bytes of smaller ones have gathered — even though floe checks 5× as often
    const floe = byName(report.results, 'floe-tiered');
    const amoro = byName(report.results, 'amoro-trigger40-5m');
    expect(floe.writeAmplification).toBeLessThan(amoro.writeAmplification);
    expect(floe.liveDataFiles.mean).toBeLessThan(amoro.liveDataFiles.mean);
  });

  it('compacting more often costs more rewritten bytes', () => {
    const wa = (n: string) => byName(report.results, n).writeAmplification;
    expect(wa('spark-binpack-1m')).toBeGreaterThan(wa('spark-binpack-10m'));
    expect(wa('spark-binpack-10m')).toBeGreaterThan(wa('spark-binpack-60m'));
  });
});

describe('upsert-1h preset', () => {
  const preset = getPreset('upsert-1h');
  // The no-compaction baseline, one Spark schedule and floe (the full set is exercised by the CLI).
  const policies = preset.policies.filter((p) => ['none', 'spark-binpack-10m', 'floe-tiered'].includes(p.name));
  const report = simulate(preset.stream, policies);
  const none = byName(report.results, 'none');
  const tiered = byName(report.results, 'floe-tiered');
  const spark = byName(report.results, 'spark-binpack-10m');

  it('starts from the 230 GiB base table and keeps every policy sound', () => {
    expect(report.results).toHaveLength(3);
    expect(none.timeline[0]!.liveDataFiles).toBeGreaterThanOrEqual(1840);
    for (const r of report.results) expect(r.violations, r.policy).toEqual([]);
  });

  it('tiered keeps fewer live data files than no compaction', () => {
    expect(tiered.liveDataFiles.mean).toBeLessThan(none.liveDataFiles.mean);
    expect(tiered.liveDataFiles.final).toBeLessThan(none.liveDataFiles.final);
  });

  it('every policy ends with the same live bytes (compaction moves rows, it never adds or drops them)', () => {
    for (const r of report.results)
      expect(Math.abs(r.finalLiveBytes - none.finalLiveBytes) / none.finalLiveBytes).toBeLessThan(1e-6);
  });

  it('the delete-threshold bin-pack rewrites the whole base table, tiered converts deletes instead', () => {
    // With 8 equality deletes a minute every base file reaches 10 deletes within 2 minutes, so each
    // Spark run rewrites (nearly) all 230 GiB; tiered reads key columns and writes position deletes.
    expect(spark.compactionBytesWritten).toBeGreaterThan(230 * 1024 ** 3);
    expect(tiered.compactionBytesWritten).toBeLessThan(spark.compactionBytesWritten / 10);
    expect(tiered.tasksByKind['eq-to-pos'] ?? 0).toBeGreaterThan(0);
  });
});
