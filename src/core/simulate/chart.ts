/**
 * A self-contained SVG chart of a simulation, one panel per metric, one line per policy: live data files,
 * delete files (when any policy has some — the upsert workloads), and cumulative bytes written by
 * compaction. No scripts, fonts or network references.
 * Each series is a <polyline class="series" data-policy="…" data-metric="…"> so tools can find it.
 *
 * Readability rules (checked by rendering to PNG in test/core/simulate/chart-png.test.ts):
 * - lines that coincide must stay visible: every policy has its own colour *and* dash pattern, and is
 *   labelled directly at its right end (labels are pushed apart so they never overlap);
 * - axis ticks sit at round numbers: counts at 1/2/2.5/5 × 10^k, bytes at binary-round steps
 *   (16, 32, 48 MiB), log axes at powers of 32 (1 MiB, 32 MiB, 1 GiB);
 * - a count axis whose values all lie far above zero starts near the data, not at 0, so the policies'
 *   differences are not squashed into a sliver (the tick labels show where it starts).
 */
import { formatBytes } from '../../../util/units.js';
import type { PolicyResult, SimulationReport, TimelinePoint } from './types.js';

const PALETTE = [
  '#1f77b4',
  '#d62728',
  '#2ca02c',
  '#ff7f0e',
  '#9467bd',
  '#8c564b',
  '#e377c2',
  '#17becf',
  '#7f7f7f',
  '#bcbd22',
];
/** Dash patterns, in the same order as the palette: a line drawn over another leaves gaps it shows through. */
const DASHES = ['', '10 5', '3 4', '12 5 3 5', '7 7', '2 6', '14 4 2 4 2 4', '8 3', '1 4', '5 4 1 4'];
const WIDTH = 960;
const PANEL_H = 250;
const MARGIN = { left: 80, right: 200, top: 40, bottom: 40 };
const LABEL_GAP = 13;
const INSET = 6;

export function escapeXml(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** About five round tick values covering [0, max]. */
export function niceTicks(max: number): number[] {
  return niceRangeTicks(0, max);
}

/** Round ticks (step 1/2/2.5/5 × 10^k) covering [min, max], starting at a multiple of the step. */
export function niceRangeTicks(min: number, max: number): number[] {
  if (!(max > min)) return [min, min + 1];
  const raw = (max - min) / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const first = Math.floor(min / step + 1e-9) * step;
  const ticks: number[] = [];
  for (let i = 0; first + i * step <= max + step * 1e-9; i++) ticks.push(round(first + i * step));
  if (ticks[ticks.length - 1]! < max) ticks.push(round(ticks[ticks.length - 1]! + step));
  return ticks;
}

const round = (v: number) => Math.round(v * 1e6) / 1e6;

/**
 * Byte ticks covering [0, max] at a binary-round step: a power of two times a power of 1024, so labels
 * read 16, 32, 48 MiB (not 19.1, 38.1 MiB). Four to eight ticks.
 */
export function niceByteTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  let step = 1;
  while (max / step > 7) step *= 2;
  const ticks: number[] = [];
  for (let v = 0; v < max + step; v += step) {
    ticks.push(v);
    if (v >= max) break;
  }
  return ticks;
}

/** A tick label: 0, 512 B, 16 MiB, 1.5 GiB — no trailing zeros. */
export function byteLabel(v: number): string {
  return v === 0 ? '0' : formatBytes(v, { precision: 'trim' });
}

/** Powers of 32 (1 KiB, 32 KiB, 1 MiB … — round in binary units) from the one at or below `min` to the first ≥ `max`. */
function logTicks(min: number, max: number): number[] {
  const ticks: number[] = [];
  for (let v = 32 ** Math.floor(Math.log(Math.max(min, 1)) / Math.log(32)); ; v *= 32) {
    ticks.push(v);
    if (v >= max) break;
  }
  return ticks;
}

type Metric = 'liveDataFiles' | 'deleteFiles' | 'cumulativeBytesWritten';

interface Panel {
  title: string;
  metric: Metric;
  top: number;
  kind: 'count' | 'bytes' | 'log-bytes';
  /** Room right of the plot for the end labels. */
  right: number;
}

/** Spreads label positions at least LABEL_GAP apart inside [lo, hi], keeping their order. */
export function spreadLabels(ys: readonly number[], lo: number, hi: number, gap = LABEL_GAP): number[] {
  const order = ys.map((y, i) => ({ y, i })).sort((a, b) => a.y - b.y || a.i - b.i);
  const placed = order.map((o) => Math.min(Math.max(o.y, lo), hi));
  for (let k = 1; k < placed.length; k++) placed[k] = Math.max(placed[k]!, placed[k - 1]! + gap);
  // pushed past the bottom: shift the stack up, then re-apply the gap from the top
  const over = placed[placed.length - 1]! - hi;
  if (over > 0) for (let k = 0; k < placed.length; k++) placed[k] = placed[k]! - over;
  for (let k = 0; k < placed.length; k++) placed[k] = Math.max(placed[k]!, k === 0 ? lo : placed[k - 1]! + gap);
  const out = new Array<number>(ys.length);
  order.forEach((o, k) => (out[o.i] = placed[k]!));
  return out;
}

function axis(p: Panel, results: readonly PolicyResult[]): { ticks: number[]; labels: string[]; log: boolean } {
  let maxV = 0;
  let minV = Infinity;
  let minPositive = Infinity;
  for (const r of results) {
    for (const pt of r.timeline) {
      const v = pt[p.metric];
      maxV = Math.max(maxV, v);
      minV = Math.min(minV, v);
      if (v > 0) minPositive = Math.min(minPositive, v);
    }
  }
  if (p.kind === 'log-bytes') {
    const ticks = logTicks(minPositive, Math.max(maxV, 10));
    // values at or below the lowest tick (zero included) sit on the bottom edge
    return { ticks, labels: ticks.map((t, i) => (i === 0 ? `≤ ${byteLabel(t)}` : byteLabel(t))), log: true };
  }
  if (p.kind === 'bytes') {
    const ticks = niceByteTicks(maxV);
    return { ticks, labels: ticks.map(byteLabel), log: false };
  }
  // counts: start near the data when it all lies in the upper part of the range
  const ticks = minV > 0.5 * maxV && maxV - minV > 0 ? niceRangeTicks(minV, maxV) : niceTicks(maxV);
  return { ticks, labels: ticks.map((t) => String(t)), log: false };
}

function sameSeries(a: PolicyResult, b: PolicyResult, metric: Metric): boolean {
  return (
    a.timeline.length === b.timeline.length &&
    a.timeline.every((p, i) => p.minute === b.timeline[i]!.minute && p[metric] === b.timeline[i]![metric])
  );
}

/** Each policy's end label; a line identical to an earlier one's says "(= that one)". */
function endLabels(results: readonly PolicyResult[], metric: Metric): string[] {
  return results.map((r, i) => {
    const same = results.slice(0, i).find((o) => sameSeries(o, r, metric));
    return same ? `${r.policy} (= ${same.policy})` : r.policy;
  });
}

function renderPanel(p: Panel, results: readonly PolicyResult[], maxMinute: number): string {
  const plotW = WIDTH - MARGIN.left - p.right;
  const plotH = PANEL_H - MARGIN.top - MARGIN.bottom;
  const x0 = MARGIN.left;
  const y0 = p.top + MARGIN.top;
  const { ticks, labels, log } = axis(p, results);
  const top = ticks[ticks.length - 1]!;
  const bottom = ticks[0]!;
  // Values map into the frame minus a small inset, so a line at the axis minimum (a policy that never
  // compacts: 0 bytes) is drawn above the frame, not hidden in it.
  const inner = plotH - 2 * INSET;
  const yb = y0 + plotH - INSET;
  const y = log
    ? (v: number) => yb - (v <= bottom ? 0 : (Math.log10(v / bottom) / Math.log10(top / bottom)) * inner)
    : (v: number) => yb - ((v - bottom) / (top - bottom)) * inner;
  const x = (m: number) => x0 + (maxMinute > 0 ? (m / maxMinute) * plotW : 0);

  const out: string[] = [];
  out.push(
    `<text x="${x0}" y="${p.top + 24}" font-size="15" font-weight="bold">${escapeXml(p.title)}${log ? ' (log scale)' : ''}</text>`,
  );
  ticks.forEach((t, i) => {
    const yy = y(t).toFixed(1);
    out.push(`<line x1="${x0}" y1="${yy}" x2="${x0 + plotW}" y2="${yy}" stroke="#e5e5e5"/>`);
    out.push(
      `<text class="tick" data-axis="y" x="${x0 - 6}" y="${yy}" font-size="11" text-anchor="end" dominant-baseline="middle">${escapeXml(labels[i]!)}</text>`,
    );
  });
  for (const m of niceTicks(maxMinute)) {
    if (m > maxMinute) continue;
    const xx = x(m).toFixed(1);
    out.push(`<line x1="${xx}" y1="${y0 + plotH}" x2="${xx}" y2="${y0 + plotH + 4}" stroke="#333"/>`);
    out.push(
      `<text class="tick" data-axis="x" x="${xx}" y="${y0 + plotH + 16}" font-size="11" text-anchor="middle">${m}</text>`,
    );
  }
  out.push(
    `<text x="${x0 + plotW / 2}" y="${y0 + plotH + 32}" font-size="11" text-anchor="middle">simulated minute</text>`,
  );
  out.push(`<rect x="${x0}" y="${y0}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  const ends: number[] = [];
  results.forEach((r, i) => {
    const points = r.timeline
      .map((pt: TimelinePoint) => `${x(pt.minute).toFixed(1)},${y(pt[p.metric]).toFixed(1)}`)
      .join(' ');
    const dash = DASHES[i % DASHES.length]!;
    out.push(
      `<polyline class="series" data-policy="${escapeXml(r.policy)}" data-metric="${p.metric}" fill="none" stroke="${PALETTE[i % PALETTE.length]}" ` +
        `stroke-width="2.2"${dash ? ` stroke-dasharray="${dash}"` : ''} stroke-linejoin="round" points="${points}"/>`,
    );
    const last = r.timeline[r.timeline.length - 1];
    ends.push(last ? y(last[p.metric]) : y0 + plotH);
  });
  // Direct labels at the right end of each line, pushed apart; a thin leader joins a moved label to its line.
  // A line identical to an earlier one says so, since it is drawn over it.
  const placed = spreadLabels(ends, y0 + 4, y0 + plotH - 2);
  const names = endLabels(results, p.metric);
  results.forEach((r, i) => {
    const colour = PALETTE[i % PALETTE.length];
    const lx = x0 + plotW + 14;
    out.push(
      `<line x1="${x0 + plotW + 1}" y1="${ends[i]!.toFixed(1)}" x2="${lx - 2}" y2="${placed[i]!.toFixed(1)}" stroke="${colour}" stroke-width="1"/>`,
    );
    out.push(
      `<text class="end-label" data-policy="${escapeXml(r.policy)}" x="${lx}" y="${placed[i]!.toFixed(1)}" font-size="11.5" fill="${colour}" dominant-baseline="middle">${escapeXml(names[i]!)}</text>`,
    );
  });
  return out.join('\n');
}

/** The whole chart as an SVG document. */
export function renderChart(report: SimulationReport): string {
  const results = report.results;
  const maxMinute = Math.max(0, ...results.flatMap((r) => r.timeline.map((p) => p.minute)));
  // Cumulative rewrite volumes differ by orders of magnitude between policies (a full-table rewrite
  // vs. merging fragments); a log axis keeps every line readable then.
  const finals = results.map((r) => r.compactionBytesWritten).filter((v) => v > 0);
  const logBytes = finals.length > 1 && Math.max(...finals) / Math.min(...finals) > 100;
  const hasDeletes = results.some((r) => r.timeline.some((p) => p.deleteFiles > 0));
  // The end labels need room: widen the right margin for long policy names (about 6.5 px per character).
  const metrics: Metric[] = [
    'liveDataFiles',
    ...(hasDeletes ? ['deleteFiles' as const] : []),
    'cumulativeBytesWritten',
  ];
  const longest = Math.max(0, ...metrics.flatMap((m) => endLabels(results, m).map((l) => l.length)));
  const right = Math.min(WIDTH / 2, Math.max(MARGIN.right, 24 + Math.ceil(longest * 6.5)));
  const panels: Omit<Panel, 'top' | 'right'>[] = [
    { title: 'Live data files', metric: 'liveDataFiles', kind: 'count' },
    ...(hasDeletes ? [{ title: 'Live delete files', metric: 'deleteFiles' as const, kind: 'count' as const }] : []),
    {
      title: 'Cumulative bytes written by compaction',
      metric: 'cumulativeBytesWritten',
      kind: logBytes ? 'log-bytes' : 'bytes',
    },
  ];
  const height = panels.length * PANEL_H + 40;
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="Helvetica, Arial, DejaVu Sans, Liberation Sans, sans-serif">`,
    `<title>${escapeXml(`floe simulate ${report.stream.name}`)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="22" font-size="17" text-anchor="middle">${escapeXml(`${report.stream.name}: ${report.stream.durationMinutes} simulated minutes`)}</text>`,
    ...panels.map((p, i) => renderPanel({ ...p, top: 20 + i * PANEL_H, right }, results, maxMinute)),
  ];
  parts.push('</svg>', '');
  return parts.join('\n');
}
