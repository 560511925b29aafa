/**
 * Two small hand-made SVG charts for the dashboard (no charting library): a bar chart (file-size
 * histograms) and a line chart over time (files and delete files from run history). Output is a string
 * of SVG markup, every label escaped.
 */
export const escapeHtml = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

export interface BarChartOptions {
  width?: number;
  height?: number;
  color?: string;
  title?: string;
  /** Highlight bars at these indexes (e.g. the small-file buckets). */
  accent?: { indexes: number[]; color: string };
}

export function barChart(values: number[], labels: string[], o: BarChartOptions = {}): string {
  const width = o.width ?? 520;
  const height = o.height ?? 200;
  const pad = { left: 40, right: 10, top: o.title ? 40 : 18, bottom: 34 };
  const w = width - pad.left - pad.right;
  const h = height - pad.top - pad.bottom;
  const max = Math.max(1, ...values);
  const ticks = niceTicks(max, 4);
  const top = ticks[ticks.length - 1]!;
  const bw = w / Math.max(1, values.length);
  const out: string[] = [];
  out.push(
    `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(o.title ?? 'bar chart')}">`,
  );
  if (o.title) out.push(`<text x="${pad.left}" y="16" class="chart-title">${escapeHtml(o.title)}</text>`);
  for (const t of ticks) {
    const y = pad.top + h - (t / top) * h;
    out.push(`<line x1="${pad.left}" x2="${pad.left + w}" y1="${f(y)}" y2="${f(y)}" class="grid"/>`);
    out.push(`<text x="${pad.left - 6}" y="${f(y + 4)}" class="tick" text-anchor="end">${fmtNum(t)}</text>`);
  }
  values.forEach((v, i) => {
    const bh = (v / top) * h;
    const x = pad.left + i * bw + bw * 0.12;
    const color = o.accent?.indexes.includes(i) ? o.accent.color : (o.color ?? '#3b6fd8');
    out.push(
      `<rect x="${f(x)}" y="${f(pad.top + h - bh)}" width="${f(bw * 0.76)}" height="${f(Math.max(bh, v > 0 ? 1 : 0))}" fill="${color}" rx="2"><title>${escapeHtml(labels[i] ?? '')}: ${v}</title></rect>`,
    );
    if (v > 0)
      out.push(
        `<text x="${f(x + bw * 0.38)}" y="${f(pad.top + h - bh - 4)}" class="value" text-anchor="middle">${fmtNum(v)}</text>`,
      );
    out.push(
      `<text x="${f(x + bw * 0.38)}" y="${f(pad.top + h + 16)}" class="tick" text-anchor="middle">${escapeHtml(labels[i] ?? '')}</text>`,
    );
  });
  out.push(`<line x1="${pad.left}" x2="${pad.left + w}" y1="${pad.top + h}" y2="${pad.top + h}" class="axis"/>`);
  out.push('</svg>');
  return out.join('');
}

export interface Series {
  name: string;
  color: string;
  points: { x: number; y: number }[];
  dashed?: boolean;
}

/** x values are epoch ms. An empty chart says so instead of drawing axes around nothing. */
export function lineChart(
  series: Series[],
  o: { width?: number; height?: number; title?: string; empty?: string } = {},
): string {
  const width = o.width ?? 620;
  const height = o.height ?? 220;
  const pad = { left: 44, right: 14, top: o.title ? 44 : 28, bottom: 30 };
  const all = series.flatMap((s) => s.points);
  const out: string[] = [];
  out.push(
    `<svg class="chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(o.title ?? 'line chart')}">`,
  );
  if (o.title) out.push(`<text x="${pad.left}" y="16" class="chart-title">${escapeHtml(o.title)}</text>`);
  if (all.length === 0) {
    out.push(
      `<text x="${width / 2}" y="${height / 2}" class="empty" text-anchor="middle">${escapeHtml(o.empty ?? 'no data yet')}</text></svg>`,
    );
    return out.join('');
  }
  const w = width - pad.left - pad.right;
  const h = height - pad.top - pad.bottom;
  let x0 = Math.min(...all.map((p) => p.x));
  let x1 = Math.max(...all.map((p) => p.x));
  if (x1 === x0) {
    x0 -= 60_000;
    x1 += 60_000;
  }
  const ticks = niceTicks(Math.max(1, ...all.map((p) => p.y)), 4);
  const top = ticks[ticks.length - 1]!;
  const X = (x: number) => pad.left + ((x - x0) / (x1 - x0)) * w;
  const Y = (y: number) => pad.top + h - (y / top) * h;
  for (const t of ticks) {
    out.push(`<line x1="${pad.left}" x2="${pad.left + w}" y1="${f(Y(t))}" y2="${f(Y(t))}" class="grid"/>`);
    out.push(`<text x="${pad.left - 6}" y="${f(Y(t) + 4)}" class="tick" text-anchor="end">${fmtNum(t)}</text>`);
  }
  for (const frac of [0, 0.5, 1]) {
    const x = x0 + frac * (x1 - x0);
    out.push(
      `<text x="${f(X(x))}" y="${pad.top + h + 18}" class="tick" text-anchor="${frac === 0 ? 'start' : frac === 1 ? 'end' : 'middle'}">${escapeHtml(fmtTime(x, x1 - x0))}</text>`,
    );
  }
  out.push(`<line x1="${pad.left}" x2="${pad.left + w}" y1="${pad.top + h}" y2="${pad.top + h}" class="axis"/>`);
  series.forEach((s, i) => {
    if (s.points.length === 0) return;
    const d = s.points.map((p, k) => `${k === 0 ? 'M' : 'L'}${f(X(p.x))},${f(Y(p.y))}`).join(' ');
    out.push(
      `<path d="${d}" fill="none" stroke="${s.color}" stroke-width="2"${s.dashed ? ' stroke-dasharray="5 4"' : ''}/>`,
    );
    for (const p of s.points)
      out.push(
        `<circle cx="${f(X(p.x))}" cy="${f(Y(p.y))}" r="3" fill="${s.color}"><title>${escapeHtml(s.name)}: ${p.y} at ${new Date(p.x).toISOString()}</title></circle>`,
      );
    // legend, top right
    const lx = pad.left + w - (series.length - i) * 130 + 10;
    out.push(
      `<rect x="${lx}" y="${pad.top - 18}" width="12" height="4" y-offset="0" fill="${s.color}"/><text x="${lx + 16}" y="${pad.top - 13}" class="legend">${escapeHtml(s.name)}</text>`,
    );
  });
  out.push('</svg>');
  return out.join('');
}

function niceTicks(max: number, count: number): number[] {
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const stepInt = Math.max(1, step);
  const out: number[] = [];
  for (let t = 0; t <= max + stepInt * 0.999; t += stepInt) out.push(Math.round(t * 1000) / 1000);
  if (out.length < 2) out.push(stepInt);
  return out;
}

const f = (n: number) => (Math.round(n * 10) / 10).toString();

function fmtNum(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  return String(n);
}

function fmtTime(ms: number, span: number): string {
  const iso = new Date(ms).toISOString();
  return span < 86_400_000 ? `${iso.slice(11, 19)} UTC` : iso.slice(0, 10);
}
