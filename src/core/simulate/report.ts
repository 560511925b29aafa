/** Text and JSON views of a simulation report. */
import { formatBytes, type FormatBytesOptions } from '../../../util/units.js';
import { describeSchedule } from './schedule.js';
import type { PolicyResult, SeriesStats, SimulationReport } from './types.js';

/** 1536 → "1.50 KiB": three significant digits, so the policies' columns line up. */
const SIG3: FormatBytesOptions = { precision: 'sig3' };

function fmtNum(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

function fmtStats(s: SeriesStats): string {
  return `${fmtNum(s.mean)} / ${fmtNum(s.p95)} / ${fmtNum(s.max)}`;
}

function fmtRatio(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** Renders rows as a plain-text table with right-aligned columns (left-aligned first column). */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** The side-by-side comparison: one row per policy. */
export function renderReport(report: SimulationReport): string {
  const { stream, results } = report;
  const header = [
    'policy',
    'schedule',
    'runs',
    'tasks',
    'read',
    'read cost',
    'written',
    'write amp',
    'data files mean/p95/max',
    'delete files mean/p95/max',
    'query penalty mean/max',
    'final files',
  ];
  const rows = results.map((r: PolicyResult) => [
    r.policy,
    r.planner === 'none' ? '—' : describeSchedule(r.schedule),
    String(r.compactionRuns),
    String(r.tasks),
    formatBytes(r.compactionBytesRead, SIG3),
    formatBytes(r.compactionReadCost, SIG3),
    formatBytes(r.compactionBytesWritten, SIG3),
    fmtRatio(r.writeAmplification),
    fmtStats(r.liveDataFiles),
    fmtStats(r.deleteFiles),
    `${r.queryPenalty.mean.toFixed(1)} / ${r.queryPenalty.max.toFixed(1)}`,
    `${r.liveDataFiles.final}+${r.deleteFiles.final}`,
  ]);
  const ingested = results[0]?.bytesIngested ?? 0;
  const lines = [
    `${stream.name}: ${stream.durationMinutes} simulated minutes, ${stream.commits} writer commits, ${formatBytes(ingested, SIG3)} ingested`,
    ...(stream.description ? [stream.description] : []),
    '',
    renderTable(header, rows),
    '',
    'runs = planner calls that committed a rewrite; write amp = compaction bytes written / bytes ingested;',
    'read cost = bytes read + a charge per committed run and per live file then + one per file a task opens',
    '  (sizeModel runCostBytes 256 KiB, runCostBytesPerLiveFile 1 KiB, fileOpenCostBytes 64 KiB by default);',
    'query penalty = delete files a reader merges per live data file (Iceberg association rules);',
    "file counts are sampled every simulated minute, before that minute's compaction (p95 nearest-rank);",
    'final files = data + delete files at the end of the run.',
    ...convertedNote(results),
  ];
  const bad = results.filter((r) => r.violations.length > 0);
  for (const r of bad) {
    lines.push(
      '',
      `${r.policy}: ${r.violations.length} plan violation(s):`,
      ...r.violations.slice(0, 5).map((v) => `  ${v}`),
    );
  }
  return lines.join('\n');
}

/** The report for `--json`: everything, timelines included. */
export function reportJson(report: SimulationReport): string {
  return JSON.stringify(report, null, 2);
}

/**
 * "1845+1843" reads like a table drowning in deletes; it is the shape equality-delete conversion leaves:
 * one position-delete file per data file it touched, each applying to that file only (a merge of one).
 */
export function convertedNote(results: readonly PolicyResult[]): string[] {
  const r = results.find((x) => x.deleteFiles.final > 0 && x.deleteFiles.final >= 0.5 * x.liveDataFiles.final);
  if (!r) return [];
  return [
    `  ${r.liveDataFiles.final}+${r.deleteFiles.final} (${r.policy}): converting equality deletes writes one position-delete file per data`,
    '  file it touched (v2; a deletion vector on v3), each applying to its own file only: a reader merges one small file',
    '  per data file, not every delete (see query penalty).',
  ];
}
