/** `floe plan universal`: the action function, run in-process with captured output. */
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parseRunsSpec, planUniversalAction, register } from '../../../src/shells/cli/commands/plan.js';

const capture = (runs: string, opts: Parameters<typeof planUniversalAction>[1]): string => {
  let out = '';
  planUniversalAction(runs, opts, (t) => (out += t));
  return out;
};

describe('floe plan universal', () => {
  it('prints the worked example result: three L0 runs into L2 (30 MB)', () => {
    // Hand-derived in universal.test.ts: size amp 130% ≤ 200%, ratio takes 10+10+10 and stops at L3:100 → L2.
    const out = capture('L0:10 L0:10 L0:10 L3:100 L5:100', {});
    expect(out.trim()).toBe(
      'Result: compact 3 runs [L0:10 MB, L0:10 MB, L0:10 MB] (30 MB) into L2 (size-ratio; keep deletes)',
    );
  });

  it('--explain lists every gate before the result', () => {
    const out = capture('L0:10 L0:10 L0:10 L3:100 L5:100', { explain: true });
    const lines = out.trim().split('\n');
    expect(lines[0]).toMatch(/\[input\]/);
    expect(out).toContain('[size-amplification] fail: newer runs 130 MB / oldest run 100 MB = 130% ≤ max 200%');
    expect(out).toContain('30 MB × 101% = 30.3 MB < next run L3:100 MB → stop');
    expect(out).toContain('output level max(0, 3 − 1) = 2');
    expect(lines.at(-1)).toMatch(/^Result: compact 3 runs/);
  });

  it('--json with Paimon dotted options and size suffixes', () => {
    // force-up-level-0 on [2, 2, 3, 100] MB (given here as 2048KB, 2MB, 3MB, 0.09765625GB = 100 MB):
    // forced L0 pair S=4, 4.04 ≥ 3 take, 7.07 < 100 at L5 → 3 runs into L4.
    const out = JSON.parse(
      capture('L0:2048KB, L0:2MB, L4:3 L5:0.09765625GB', { option: ['compaction.force-up-level-0=true'], json: true }),
    );
    expect(out.result).toMatchObject({
      outputLevel: 4,
      runCount: 3,
      inputBytes: 7 * 1024 * 1024,
      dropDelete: false,
      reason: 'force-up-level-0',
    });
    expect(out.trail).toBeUndefined();
  });

  it('--num-levels, camelCase options, clock and state flags', () => {
    // Interval 1 h, last full compaction 2 h before --now → full compaction into max level 7 of 8 levels.
    const out = JSON.parse(
      capture('L0:10 L0:10 L0:10 L3:100 L5:100', {
        option: ['optimizationInterval=1h'],
        numLevels: '8',
        now: '2026-01-01T12:00:00Z',
        lastFullCompaction: '2026-01-01T10:00:00Z',
        json: true,
      }),
    );
    expect(out.result.outputLevel).toBe(7);
    expect(out.result.reason).toBe('early-full-interval');
    expect(out.state.lastFullCompactionMs).toBe(Date.parse('2026-01-01T12:00:00Z'));
  });

  it('reports no compaction and rejects malformed runs', () => {
    expect(capture('L0:2 L0:2 L4:3 L5:100', {}).trim()).toBe('Result: no compaction');
    expect(() => parseRunsSpec('L0:2 X')).toThrow(/L<level>:<size>/);
    expect(parseRunsSpec('0:1B 3:1KB')).toEqual([
      { level: 0, size: 1 },
      { level: 3, size: 1024 },
    ]);
  });

  it('registers as `plan universal`', () => {
    const program = new Command();
    register(program);
    const plan = program.commands.find((c) => c.name() === 'plan')!;
    expect(plan.commands.map((c) => c.name())).toContain('universal');
  });
});
