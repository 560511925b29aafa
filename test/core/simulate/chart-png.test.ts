/**
 * Issue 13.18: the simulator's charts rendered to PNG (resvg) and checked on the pixels — every policy's
 * line is visible in every panel even where lines coincide (dash patterns), the upsert chart has a
 * delete-files panel, and axis ticks are round numbers. The PNGs are written to $FLOE_CHART_PNG_DIR (or a
 * temp dir) so a person can look at them.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Resvg } from '@resvg/resvg-js';
import { getPreset } from '../../../src/core/simulate/presets.js';
import { renderChart, simulate } from '../../../src/core/simulate/index.js';
import { byteLabel, niceByteTicks, niceRangeTicks, spreadLabels } from '../../../src/core/simulate/chart.js';

const MiB = 1024 * 1024;
const SCALE = 2;
const outDir = process.env.FLOE_CHART_PNG_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'floe-charts-'));
mkdirSync(outDir, { recursive: true });

interface Rendered {
  svg: string;
  width: number;
  height: number;
  pixels: Uint8Array;
}

const cache = new Map<string, Rendered>();

/** Simulates a preset once (the upsert run takes seconds) and renders its chart to PNG. */
function render(name: string): Rendered {
  const hit = cache.get(name);
  if (hit) return hit;
  const p = getPreset(name);
  const svg = renderChart(simulate(p.stream, p.policies));
  const img = new Resvg(svg, { fitTo: { mode: 'zoom', value: SCALE } }).render();
  writeFileSync(path.join(outDir, `${name}.png`), img.asPng());
  const r = { svg, width: img.width, height: img.height, pixels: img.pixels };
  cache.set(name, r);
  return r;
}

const hex = (c: string) => [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));

/** Pixels within `tol` of `colour` inside an SVG-coordinate rectangle. */
function countColour(
  r: Rendered,
  colour: string,
  rect: { x: number; y: number; w: number; h: number },
  tol = 60,
): number {
  const [cr, cg, cb] = hex(colour);
  let n = 0;
  for (let y = Math.ceil(rect.y * SCALE); y < (rect.y + rect.h) * SCALE; y++) {
    for (let x = Math.ceil(rect.x * SCALE); x < (rect.x + rect.w) * SCALE; x++) {
      const i = (y * r.width + x) * 4;
      const d = Math.abs(r.pixels[i]! - cr!) + Math.abs(r.pixels[i + 1]! - cg!) + Math.abs(r.pixels[i + 2]! - cb!);
      if (d <= tol) n++;
    }
  }
  return n;
}

/** Each panel's plot area (the <rect fill="none"> frames) and the series drawn in it. */
function panels(svg: string): {
  rect: { x: number; y: number; w: number; h: number };
  series: { policy: string; metric: string; colour: string }[];
}[] {
  const frames = [
    ...svg.matchAll(/<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)" fill="none"/g),
  ].map((m) => ({
    x: Number(m[1]) + 3,
    y: Number(m[2]) + 3,
    w: Number(m[3]) - 6,
    h: Number(m[4]) - 6, // inside the frame line
  }));
  const series = [
    ...svg.matchAll(
      /<polyline class="series" data-policy="([^"]*)" data-metric="([^"]*)" fill="none" stroke="(#[0-9a-f]{6})"/g,
    ),
  ].map((m) => ({
    policy: m[1]!,
    metric: m[2]!,
    colour: m[3]!,
  }));
  const metrics = [...new Set(series.map((s) => s.metric))];
  return frames.map((rect, i) => ({ rect, series: series.filter((s) => s.metric === metrics[i]) }));
}

describe('simulator charts as PNG', () => {
  for (const name of ['append-1h', 'upsert-1h']) {
    it(`${name}: every policy's line is visible in every panel`, { timeout: 120_000 }, () => {
      const r = render(name);
      expect(r.width).toBe(960 * SCALE);
      const ps = panels(r.svg);
      expect(ps.length).toBe(name === 'upsert-1h' ? 3 : 2);
      for (const p of ps) {
        expect(p.series.length).toBe(getPreset(name).policies.length);
        for (const s of p.series) {
          // a line spans the whole plot width; fewer than ~60 of its pixels means it is hidden under others
          const seen = countColour(r, s.colour, p.rect);
          expect(seen, `${name} ${s.metric} ${s.policy} (${s.colour}) visible pixels`).toBeGreaterThan(60);
        }
      }
    });
  }

  it('the upsert chart has a delete-files panel; the append chart (no deletes) has none', () => {
    expect(render('upsert-1h').svg).toContain('data-metric="deleteFiles"');
    expect(render('upsert-1h').svg).toContain('>Live delete files<');
    expect(render('append-1h').svg).not.toContain('data-metric="deleteFiles"');
  });

  it('coinciding lines are labelled as such at their right end', () => {
    const svg = render('append-1h').svg;
    // with no compaction and an hourly bin-pack that first fires at minute 60, the live-file lines coincide
    expect(svg).toMatch(/class="end-label" data-policy="spark-binpack-60m"[^>]*>spark-binpack-60m \(= none\)</);
  });

  it('axis ticks are round numbers: 16, 32, 48 MiB, not 19.1', () => {
    for (const name of ['append-1h', 'upsert-1h']) {
      const labels = [...render(name).svg.matchAll(/class="tick" data-axis="y"[^>]*>([^<]*)</g)].map((m) => m[1]!);
      expect(labels.length).toBeGreaterThan(8);
      for (const l of labels) expect(l, `${name} tick ${l}`).toMatch(/^(?:≤ )?(?:0|\d+(?: (?:B|KiB|MiB|GiB|TiB))?)$/);
    }
    expect(niceByteTicks(85 * MiB).map(byteLabel)).toEqual([
      '0',
      '16 MiB',
      '32 MiB',
      '48 MiB',
      '64 MiB',
      '80 MiB',
      '96 MiB',
    ]);
    expect(niceByteTicks(3 * 1024 * MiB).map(byteLabel)).toEqual([
      '0',
      '512 MiB',
      '1 GiB',
      '1.5 GiB',
      '2 GiB',
      '2.5 GiB',
      '3 GiB',
    ]);
    expect(niceRangeTicks(1846, 2320)).toEqual([1800, 1900, 2000, 2100, 2200, 2300, 2400]);
  });

  it('end labels are pushed apart and stay inside the panel', () => {
    const ys = spreadLabels([100, 100, 101, 300], 90, 305, 13);
    expect(ys).toEqual([100, 113, 126, 300]);
    const low = spreadLabels([300, 300, 300], 90, 305, 13);
    expect(low).toEqual([279, 292, 305]);
  });
});
