import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { simulateAction } from '../../../src/shells/cli/commands/simulate.js';

describe('floe simulate', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'floe-sim-'));
    await writeFile(
      join(dir, 'stream.json'),
      JSON.stringify({
        name: 'small',
        durationMinutes: 10,
        commits: [
          { atMinute: 0, data: [{ sizeBytes: 4096, records: 40, count: 2 }], repeat: { everyMinutes: 1, times: 10 } },
        ],
      }),
    );
    await writeFile(
      join(dir, 'every3.yaml'),
      [
        'name: tiered-every-3m',
        'planner: tiered',
        'properties:',
        '  self-optimizing.minor.trigger.file-count: 4',
        'schedule:',
        '  kind: periodic',
        '  everyMinutes: 3',
        '',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the side-by-side table and writes the chart for a stream file', async () => {
    let out = '';
    const chart = join(dir, 'c.svg');
    await simulateAction(
      join(dir, 'stream.json'),
      { policy: [join(dir, 'every3.yaml')], out: chart },
      (t) => (out += t),
    );
    for (const name of ['none', 'floe-tiered', 'tiered-every-3m']) expect(out).toContain(name);
    expect(out).toContain(`chart: ${chart}`);
    const svg = await readFile(chart, 'utf8');
    expect(svg).toContain('data-policy="tiered-every-3m"');
  });

  it('--json prints the numbers of only the given policies with --only', async () => {
    let out = '';
    await simulateAction(
      join(dir, 'stream.json'),
      { policy: [join(dir, 'every3.yaml')], only: true, json: true, out: join(dir, 'd.svg') },
      (t) => (out += t),
    );
    const report = JSON.parse(out);
    expect(report.results.map((r: { policy: string }) => r.policy)).toEqual(['tiered-every-3m']);
    // 10 commits × 2 files × 4096 bytes.
    expect(report.results[0].bytesIngested).toBe(81920);
    expect(report.results[0].timeline).toHaveLength(11);
  });

  it('names the file it cannot read', async () => {
    await expect(simulateAction(join(dir, 'missing.json'), { out: join(dir, 'e.svg') }, () => {})).rejects.toThrow(
      /missing\.json/,
    );
  });
});
