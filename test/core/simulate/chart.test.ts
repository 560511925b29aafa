import { describe, expect, it } from 'vitest';
import {
  normalizePolicy,
  normalizeStream,
  renderChart,
  simulate,
  niceTicks,
  escapeXml,
} from '../../../src/core/simulate/index.js';

/** Minimal XML well-formedness check: balanced, properly nested tags with quoted attributes. */
function assertWellFormedXml(xml: string): void {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '');
  const stack: string[] = [];
  const tag = /<(\/?)([A-Za-z][\w:.-]*)((?:\s+[\w:.-]+="[^"<]*")*)\s*(\/?)>/g;
  let last = 0;
  let roots = 0;
  for (let m = tag.exec(body); m; m = tag.exec(body)) {
    const between = body.slice(last, m.index);
    expect(between, `stray markup before ${m[0].slice(0, 40)}`).not.toMatch(/[<>]/);
    last = tag.lastIndex;
    const [, close, name, , selfClose] = m;
    if (close) expect(stack.pop(), `closing </${name}>`).toBe(name);
    else if (!selfClose) {
      if (stack.length === 0) roots++;
      stack.push(name!);
    } else if (stack.length === 0) roots++;
  }
  expect(body.slice(last).trim()).toBe('');
  expect(stack).toEqual([]);
  expect(roots).toBe(1);
}

describe('chart', () => {
  const stream = normalizeStream({
    name: 'tiny <&> stream',
    durationMinutes: 6,
    commits: [
      { atMinute: 0, data: [{ sizeBytes: 1000, records: 10, count: 3 }], repeat: { everyMinutes: 1, times: 6 } },
    ],
  });
  const policies = [
    normalizePolicy({ name: 'none', planner: 'none' }),
    normalizePolicy({
      name: 'bin "pack" 2m',
      planner: 'binpack',
      properties: { 'target-file-size-bytes': 1_000_000, 'min-input-files': 1 },
      schedule: { everyMinutes: 2 },
    }),
    normalizePolicy({ name: 'tiered', planner: 'tiered', properties: { 'self-optimizing.target-size': 1_000_000 } }),
  ];
  const report = simulate(stream, policies);
  const svg = renderChart(report);

  it('is a well-formed, self-contained SVG document', () => {
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toMatch(/<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assertWellFormedXml(svg);
    expect(svg).not.toMatch(/<script|href=|url\(/i);
    // The only URL is the SVG namespace itself.
    expect(svg.match(/https?:\/\//g)).toHaveLength(1);
  });

  it('draws one series per policy for each metric, with the policy name escaped', () => {
    for (const metric of ['liveDataFiles', 'cumulativeBytesWritten']) {
      const series = [
        ...svg.matchAll(new RegExp(`<polyline class="series" data-policy="([^"]*)" data-metric="${metric}"`, 'g')),
      ].map((m) => m[1]);
      expect(series).toEqual(policies.map((p) => escapeXml(p.name)));
    }
    // One point per sampled minute (0..6).
    const points = /data-metric="liveDataFiles"[^>]*points="([^"]*)"/.exec(svg)![1]!.split(' ');
    expect(points).toHaveLength(7);
  });

  it('picks round axis ticks that cover the maximum', () => {
    expect(niceTicks(480)).toEqual([0, 100, 200, 300, 400, 500]);
    expect(niceTicks(9)).toEqual([0, 2, 4, 6, 8, 10]);
    expect(niceTicks(0)).toEqual([0, 1]);
  });
});
