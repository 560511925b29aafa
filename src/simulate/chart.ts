/**
 * A self-contained SVG chart of a simulation: live data files over time (top) and cumulative bytes
 * rewritten by compaction (bottom), one line per policy. No scripts, fonts or network references.
 * Each series is a <polyline class="series" data-policy="…" data-metric="…"> so tools can find it.
 */
import { formatBytes } from './report.js';
import type { PolicyResult, SimulationReport } from './types.js';

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#17becf', '#7f7f7f', '#bcbd22'];
const WIDTH = 960;
const PANEL_H = 260;
const MARGIN = { left: 80, right: 220, top: 40, bottom: 40 };

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

/** About five round tick values covering [0, max]. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let v = 0; v <= max + step * 1e-9; v += step) ticks.push(v);
  if (ticks[ticks.length - 1]! < max) ticks.push(ticks[ticks.length - 1]! + step);
  return ticks;
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

interface Panel {
  title: string;
  metric: 'liveDataFiles' | 'cumulativeBytesWritten';
  top: number;
  log: boolean;
  label: (v: number) => string;
}

function renderPanel(p: Panel, results: readonly PolicyResult[], maxMinute: number): string {
  const plotW = WIDTH - MARGIN.left - MARGIN.right;
  const plotH = PANEL_H - MARGIN.top - MARGIN.bottom;
  const x0 = MARGIN.left;
  const y0 = p.top + MARGIN.top;
  let maxV = 0;
  let minPositive = Infinity;
  for (const r of results) {
    for (const pt of r.timeline) {
      maxV = Math.max(maxV, pt[p.metric]);
      if (pt[p.metric] > 0) minPositive = Math.min(minPositive, pt[p.metric]);
    }
  }
  const ticks = p.log ? logTicks(minPositive, Math.max(maxV, 10)) : niceTicks(maxV);
  const top = ticks[ticks.length - 1]!;
  const bottom = ticks[0]!;
  // On the log axis values below the lowest decade (zero included) sit on the bottom edge.
  const y = p.log
    ? (v: number) => y0 + plotH - (v <= bottom ? 0 : (Math.log10(v / bottom) / Math.log10(top / bottom)) * plotH)
    : (v: number) => y0 + plotH - (v / top) * plotH;
  const x = (m: number) => x0 + (maxMinute > 0 ? (m / maxMinute) * plotW : 0);

  const out: string[] = [];
  out.push(`<text x="${x0}" y="${p.top + 24}" font-size="15" font-weight="bold">${escapeXml(p.title)}${p.log ? ' (log scale)' : ''}</text>`);
  for (const t of ticks) {
    const yy = y(t).toFixed(1);
    out.push(`<line x1="${x0}" y1="${yy}" x2="${x0 + plotW}" y2="${yy}" stroke="#e5e5e5"/>`);
    out.push(`<text x="${x0 - 6}" y="${yy}" font-size="11" text-anchor="end" dominant-baseline="middle">${escapeXml(p.label(t))}</text>`);
  }
  for (const m of niceTicks(maxMinute)) {
    if (m > maxMinute) continue;
    const xx = x(m).toFixed(1);
    out.push(`<line x1="${xx}" y1="${y0 + plotH}" x2="${xx}" y2="${y0 + plotH + 4}" stroke="#333"/>`);
    out.push(`<text x="${xx}" y="${y0 + plotH + 16}" font-size="11" text-anchor="middle">${m}</text>`);
  }
  out.push(`<text x="${x0 + plotW / 2}" y="${y0 + plotH + 32}" font-size="11" text-anchor="middle">simulated minute</text>`);
  out.push(`<rect x="${x0}" y="${y0}" width="${plotW}" height="${plotH}" fill="none" stroke="#333"/>`);
  results.forEach((r, i) => {
    const points = r.timeline.map((pt) => `${x(pt.minute).toFixed(1)},${y(pt[p.metric]).toFixed(1)}`).join(' ');
    out.push(
      `<polyline class="series" data-policy="${escapeXml(r.policy)}" data-metric="${p.metric}" fill="none" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="2" points="${points}"/>`,
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
  const height = 2 * PANEL_H + 40;
  const parts: string[] = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif">`,
    `<title>${escapeXml(`floe simulate ${report.stream.name}`)}</title>`,
    `<rect width="${WIDTH}" height="${height}" fill="#fff"/>`,
    `<text x="${WIDTH / 2}" y="22" font-size="17" text-anchor="middle">${escapeXml(`${report.stream.name}: ${report.stream.durationMinutes} simulated minutes`)}</text>`,
    renderPanel({ title: 'Live data files', metric: 'liveDataFiles', top: 20, log: false, label: (v) => String(v) }, results, maxMinute),
    renderPanel(
      { title: 'Cumulative bytes written by compaction', metric: 'cumulativeBytesWritten', top: 20 + PANEL_H, log: logBytes, label: (v) => (v === 0 ? '0' : formatBytes(v)) },
      results,
      maxMinute,
    ),
  ];
  const legendX = WIDTH - MARGIN.right + 16;
  results.forEach((r, i) => {
    const yy = 20 + MARGIN.top + 8 + i * 20;
    parts.push(`<line x1="${legendX}" y1="${yy}" x2="${legendX + 22}" y2="${yy}" stroke="${PALETTE[i % PALETTE.length]}" stroke-width="3"/>`);
    parts.push(`<text x="${legendX + 28}" y="${yy}" font-size="12" dominant-baseline="middle">${escapeXml(r.policy)}</text>`);
  });
  parts.push('</svg>', '');
  return parts.join('\n');
}
