/**
 * compact-1gb's decisions (bench/compact-rounds.ts): the tiered case repeats `floe compact` until a run plans
 * nothing — read from the run's --json document, not its prose — summing wall and CPU and keeping the largest
 * peak RSS; --cases/--codec expand to codec-named cases. The "plans nothing" document is the real CLI's.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  compactDoc,
  plannedNothing,
  reportedCodec,
  selectCases,
  sumCosts,
  untilNothingPlanned,
  type CompactDoc,
  type Round,
} from '../../bench/compact-rounds.js';
import { smallTable, type SmallTable } from '../distributed/small-table.js';
import { floe } from '../shells/cli/support.js';

const tables: SmallTable[] = [];
afterEach(() => {
  for (const t of tables.splice(0)) t.cleanup();
});

const doc = (tasks: number, status = 'ok'): CompactDoc => ({
  status,
  exitCode: status === 'ok' ? 0 : 3,
  tasks: Array.from({ length: tasks }, (_, i) => ({ id: `t${i}`, kind: 'minor', outcome: 'committed' })),
  snapshots: tasks ? ['1'] : [],
  failedTasks: [],
});
const round = (tasks: number, wall: number, rss: number, status = 'ok'): Round => ({
  wall_s: wall,
  cpu_s: 2 * wall,
  peak_rss_bytes: rss,
  doc: doc(tasks, status),
});

describe('floe compact --json: what a run that plans nothing looks like', () => {
  it('a tiered run on a compacted table prints status ok and no tasks; the run before it planned some', async () => {
    const t = await smallTable(14, 4);
    tables.push(t);
    const first = await floe('compact', t.dir, '--strategy', 'tiered', '--json', '--progress', 'none');
    expect(first.code).toBe(0);
    const a = compactDoc(first.stdout);
    expect(plannedNothing(a)).toBe(false);
    expect(a.tasks.length).toBe(2);
    const second = await floe('compact', t.dir, '--strategy', 'tiered', '--json', '--progress', 'none');
    expect(second.code).toBe(0);
    const b = compactDoc(second.stdout);
    expect(b.status).toBe('ok');
    expect(b.tasks).toEqual([]);
    expect(b.snapshots).toEqual([]);
    expect(plannedNothing(b)).toBe(true);
  });

  it('output that is not a compact document is an error naming it', () => {
    expect(() => compactDoc('nothing to do')).toThrow(/no single JSON document: nothing to do/);
    expect(() => compactDoc('{"status":"ok"}')).toThrow(/not a compact result/);
  });
});

describe('untilNothingPlanned', () => {
  it('stops at the first round that plans nothing, summing wall and CPU, keeping the largest RSS', async () => {
    const script = [round(3, 10, 500), round(2, 8, 700), round(0, 1, 100), round(5, 99, 9999)];
    const seen: number[] = [];
    const r = await untilNothingPlanned(async (i) => {
      seen.push(i);
      return script[i]!;
    }, 12);
    expect(seen).toEqual([0, 1, 2]);
    expect(r.converged).toBe(true);
    expect(r.rounds.length).toBe(3);
    expect(r.total).toEqual({ wall_s: 19, cpu_s: 38, peak_rss_bytes: 700 });
  });

  it('says when the cap ran out before a round planned nothing', async () => {
    const r = await untilNothingPlanned(async () => round(1, 2, 10), 4);
    expect(r.converged).toBe(false);
    expect(r.rounds.length).toBe(4);
    expect(r.total.wall_s).toBe(8);
  });

  it('a first round that plans nothing, or a round that did not end ok, is an error', async () => {
    await expect(untilNothingPlanned(async () => round(0, 1, 1), 12)).rejects.toThrow(/first round planned nothing/);
    const script = [round(3, 1, 1), round(2, 1, 1, 'partial')];
    await expect(untilNothingPlanned(async (i) => script[i]!, 12)).rejects.toThrow(/round 2 ended partial/);
  });

  it('sumCosts of nothing is zero', () => {
    expect(sumCosts([])).toEqual({ wall_s: 0, cpu_s: 0, peak_rss_bytes: 0 });
  });
});

describe('selectCases (--cases, --codec)', () => {
  const names = (c?: string, k?: string) => selectCases(c, k).map((x) => `${x.name}:${x.codec ?? '-'}`);

  it('default: every case, floe cases with the native codec', () => {
    expect(names()).toEqual(['floe-binpack:native', 'floe-tiered:native', 'spark:-', 'duckdb-1:-', 'duckdb-2:-']);
  });

  it('--codec both adds a -wasm twin of each floe case; --codec wasm runs only those', () => {
    expect(names('floe-binpack,floe-tiered,spark', 'both')).toEqual([
      'floe-binpack:native',
      'floe-binpack-wasm:wasm',
      'floe-tiered:native',
      'floe-tiered-wasm:wasm',
      'spark:-',
    ]);
    expect(names('floe-binpack', 'wasm')).toEqual(['floe-binpack-wasm:wasm']);
    expect(names('floe-tiered-wasm,duckdb-2')).toEqual(['floe-tiered-wasm:wasm', 'duckdb-2:-']);
  });

  it('unknown cases and codecs are errors, not silently skipped', () => {
    expect(() => selectCases('floe-binpak', undefined)).toThrow(/unknown case floe-binpak/);
    expect(() => selectCases(undefined, 'wasm2')).toThrow(/--codec must be native, wasm or both/);
  });

  it('reportedCodec reads a codec the run names, else nothing', () => {
    expect(reportedCodec({ ...doc(1), parquetCodec: 'native' })).toBe('native');
    expect(reportedCodec({ ...doc(1), codec: { name: 'wasm' } })).toBe('wasm');
    expect(reportedCodec(doc(1))).toBeUndefined();
  });
});
