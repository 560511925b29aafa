import { describe, expect, it } from 'vitest';
import { normalizeStream, normalizePolicy } from '../../../src/core/simulate/index.js';
import { isFloeError } from '../../../util/errors.js';

describe('commit stream normalisation', () => {
  it('expands repeats and counts, sorts commits by time and resolves position-delete targets', () => {
    const s = normalizeStream({
      name: 's',
      durationMinutes: 3,
      tickMs: 30_000,
      commits: [
        { atMinute: 0.5, data: [{ sizeBytes: 10, records: 1 }], repeat: { everyMinutes: 1, times: 5 } },
        {
          atMinute: 0,
          data: [{ sizeBytes: 20, records: 2, count: 2 }],
          positionDeletes: [{ sizeBytes: 5, records: 1, target: 0, count: 2 }],
        },
      ],
    });
    // Repeats at 0.5, 1.5, 2.5 land; 3.5 and 4.5 fall past the 3-minute end.
    expect(s.commits.map((c) => c.atMs)).toEqual([0, 30_000, 90_000, 150_000]);
    expect(s.commits[0]!.data).toHaveLength(2);
    expect(s.commits[0]!.positionDeletes.map((d) => d.targetId)).toEqual(s.commits[0]!.data.map((d) => d.id));
    expect(new Set(s.commits.flatMap((c) => c.data.map((d) => d.id))).size).toBe(5);
    expect(s.sizeModel.keyColumnReadFraction).toBe(0.1);
  });

  it('rejects bad streams with a message naming the source', () => {
    const bad = [
      { name: 's', durationMinutes: 1, tickMs: 7000, commits: [] },
      { name: 's', durationMinutes: 1, commits: [{ data: [] }] },
      {
        name: 's',
        durationMinutes: 1,
        commits: [{ atMinute: 0, positionDeletes: [{ sizeBytes: 1, records: 1, target: 0 }] }],
      },
      {
        name: 's',
        durationMinutes: 1,
        commits: [{ atMinute: 0, positionDeletes: [{ sizeBytes: 1, records: 1, target: 'nope' }] }],
      },
      {
        name: 's',
        durationMinutes: 1,
        base: [{ sizeBytes: 1, records: 1, partition: 'a' }],
        commits: [{ atMinute: 0, data: [{ sizeBytes: 1, records: 1 }] }],
      },
      {
        name: 's',
        durationMinutes: 1,
        base: [
          { id: 'x', sizeBytes: 1, records: 1 },
          { id: 'x', sizeBytes: 1, records: 1 },
        ],
        commits: [],
      },
    ];
    for (const spec of bad) {
      let err: unknown;
      try {
        normalizeStream(spec as never, 'streams/bad.json');
      } catch (e) {
        err = e;
      }
      expect(isFloeError(err, 'InvalidArgument'), JSON.stringify(spec)).toBe(true);
      expect((err as Error).message).toContain('streams/bad.json');
    }
  });
});

describe('policy normalisation', () => {
  it('stringifies properties and defaults the schedule to every minute', () => {
    const p = normalizePolicy({
      name: 'p',
      planner: 'tiered',
      properties: { 'self-optimizing.minor.trigger.file-count': 20, x: true },
    });
    expect(p.properties).toEqual({ 'self-optimizing.minor.trigger.file-count': '20', x: 'true' });
    expect(p.schedule).toEqual({ kind: 'periodic', everyMinutes: 1 });
  });

  it('rejects unknown planners and schedules', () => {
    expect(() => normalizePolicy({ name: 'p', planner: 'zorder' as never })).toThrow(/planner/);
    expect(() => normalizePolicy({ name: 'p', planner: 'none', schedule: { kind: 'hourly' as never } })).toThrow(
      /schedule/,
    );
  });
});

describe('the documented stream format', () => {
  it('the example in src/core/simulate/README.md is a valid stream that simulates cleanly', async () => {
    const { readFile } = await import('node:fs/promises');
    const { fileURLToPath } = await import('node:url');
    const { simulatePolicy } = await import('../../../src/core/simulate/index.js');
    const readme = await readFile(
      fileURLToPath(new URL('../../../src/core/simulate/README.md', import.meta.url)),
      'utf8',
    );
    const section = readme.slice(readme.indexOf('## Commit stream files'));
    const json = /```json\n([\s\S]*?)```/.exec(section)![1]!;
    const stream = normalizeStream(JSON.parse(json), 'README example');
    expect(stream.commits).toHaveLength(62);
    const r = simulatePolicy(stream, normalizePolicy({ name: 'floe', planner: 'tiered' }));
    expect(r.violations).toEqual([]);
    expect(r.bytesIngested).toBe(60 * 8 * (1_000_000 + 20_000 + 1200) + 5000 + 900);
  });
});
