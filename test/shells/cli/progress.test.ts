/**
 * Issue 13.13: progress on stderr for every long command — a bar with rate and ETA on a terminal (never
 * 100 % while writing or committing continues), one-line JSON when not a terminal or with --progress=json.
 * A fake clock drives the renderer; no timing in assertions.
 */
import { describe, expect, it } from 'vitest';
import { createProgress, parseProgressMode } from '../../../src/shells/cli/progress.js';
import path from 'node:path';
import { copyFixture, fixtures, floe, spawnFloe } from './support.js';

function sink(isTTY: boolean) {
  const chunks: string[] = [];
  return { isTTY, chunks, write: (t: string) => chunks.push(t) };
}

describe('the bar', () => {
  it('shows rate and ETA, and stays below 100 % until the commit is published', () => {
    let t = 0;
    const s = sink(true);
    const p = createProgress(s, { mode: 'bar', now: () => t, intervalMs: 0 });
    p.listener({ type: 'plan', tasks: 2, inputFiles: 4, inputBytes: 4 * 1024 * 1024 });
    t = 1000;
    p.listener({ type: 'task-start', taskId: 'a', inputFiles: 2, inputBytes: 2 * 1024 * 1024 });
    p.listener({ type: 'file-read', taskId: 'a', path: 'f1', bytes: 1024 * 1024, rows: 10 });
    let last = s.chunks.at(-1)!;
    expect(last).toMatch(/25%/);
    expect(last).toMatch(/1\.0 MiB\/s/);
    expect(last).toMatch(/ETA 3s/);
    t = 4000;
    for (const f of ['f2', 'f3', 'f4'])
      p.listener({ type: 'file-read', taskId: 'a', path: f, bytes: 1024 * 1024, rows: 10 });
    // every byte read, but outputs are still being written: not 100 %
    last = s.chunks.at(-1)!;
    expect(last).toMatch(/99%/);
    expect(last).not.toMatch(/100%/);
    p.listener({ type: 'file-written', taskId: 'a', path: 'o1', bytes: 3 * 1024 * 1024, rows: 40 });
    p.listener({
      type: 'task-done',
      taskId: 'a',
      outputFiles: 1,
      bytesRead: 0,
      bytesWritten: 0,
      rowsIn: 0,
      rowsOut: 0,
    });
    p.listener({
      type: 'task-done',
      taskId: 'b',
      outputFiles: 1,
      bytesRead: 0,
      bytesWritten: 0,
      rowsIn: 0,
      rowsOut: 0,
    });
    last = s.chunks.at(-1)!;
    expect(last).toMatch(/99%.*committing/);
    p.listener({ type: 'commit', snapshotId: '9007199254740993', attempt: 1, groups: 2 });
    expect(s.chunks.join('')).toContain('committed snapshot 9007199254740993');
    expect(s.chunks.at(-1)).toMatch(/100%/);
    p.finish();
    expect(s.chunks.at(-1)!.endsWith('\n')).toBe(true);
  });
});

describe('JSON lines', () => {
  it('one parseable line per milestone, throttled in between', () => {
    let t = 0;
    const s = sink(false);
    const p = createProgress(s, { mode: 'json', now: () => t, intervalMs: 1000, command: 'compact' });
    p.listener({ type: 'plan', tasks: 1, inputFiles: 3, inputBytes: 300 });
    p.listener({ type: 'file-read', taskId: 'a', path: 'f1', bytes: 100, rows: 1 }); // within the interval: no line
    t = 1500;
    p.listener({ type: 'file-read', taskId: 'a', path: 'f2', bytes: 100, rows: 1 }); // a periodic line
    p.listener({
      type: 'task-done',
      taskId: 'a',
      outputFiles: 1,
      bytesRead: 0,
      bytesWritten: 0,
      rowsIn: 0,
      rowsOut: 0,
    });
    p.finish();
    const lines = s.chunks
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => l.event)).toEqual(['plan', 'file-read', 'task-done', 'finish']);
    // the library's vocabulary: `type` as in ProgressEvent (`event` kept for older readers)
    expect(lines.map((l) => l.type)).toEqual(['plan', 'file-read', 'task-done', 'finish']);
    expect(lines[1]).toMatchObject({ progress: 'compact', bytesRead: 200, bytesTotal: 300, tasks: 1, fraction: 0.666 });
    expect(lines[1]!.etaSeconds).toBe(1);
    expect(lines[2]!.fraction).toBeLessThan(1);
    expect(lines[3]!.fraction).toBe(1);
  });
  it('auto is the bar on a terminal, plain lines otherwise; JSON only when asked', () => {
    expect(parseProgressMode('auto', { isTTY: true })).toBe('bar');
    expect(parseProgressMode(undefined, { isTTY: false })).toBe('plain');
    expect(parseProgressMode('json', { isTTY: false })).toBe('json');
    expect(() => parseProgressMode('fancy')).toThrow(/--progress must be auto, bar, plain, json or none/);
  });
  it('plain (not a terminal): milestones as text lines, no JSON, no escape codes, no finish line', () => {
    let t = 0;
    const s = sink(false);
    const p = createProgress(s, { now: () => t, command: 'demo' });
    p.phase('scanning'); // at once: no status line yet
    p.listener({ type: 'plan', tasks: 1, inputFiles: 3, inputBytes: 300 });
    p.listener({ type: 'file-read', taskId: 'a', path: 'f1', bytes: 100, rows: 1 });
    t = 11_000;
    p.listener({ type: 'file-read', taskId: 'a', path: 'f2', bytes: 100, rows: 1 }); // 10 s later: one status line
    p.listener({ type: 'commit', snapshotId: '9007199254740993', attempt: 1, groups: 1 });
    p.finish();
    expect(s.chunks.join('')).toBe(
      'planned 1 task(s) over 3 file(s), 300 B\n' +
        `${s.chunks[1]}` +
        'committed snapshot 9007199254740993 (1 group(s), attempt 1)\n',
    );
    expect(s.chunks[1]).toMatch(/^\[#+-*\] 66% {2}rewriting {2}0\/1 tasks {2}200 B\/300 B read/);
    const all = s.chunks.join('');
    for (const c of ['{', '\u001b', '\r']) expect(all).not.toContain(c);
  });
  it('abort() after a failure prints no finish event; the bar ends its line', () => {
    const j = sink(false);
    const pj = createProgress(j, { mode: 'json', intervalMs: 0 });
    pj.listener({ type: 'plan', tasks: 1, inputFiles: 1, inputBytes: 1 });
    pj.abort();
    pj.finish(); // after abort: nothing more
    expect(j.chunks.map((c) => (JSON.parse(c) as { type: string }).type)).toEqual(['plan']);
    const b = sink(true);
    const pb = createProgress(b, { mode: 'bar', intervalMs: 0 });
    pb.phase('listing');
    pb.abort();
    expect(b.chunks.at(-1)).toBe('\n');
  });
});

describe('a failing command prints its error, not a finish event', () => {
  it.each([
    ['compact', ['/nope']],
    ['rewrite-manifests', [path.join(fixtures, 'paimon-cpp/append_09'), '--dry-run']],
    ['expire', ['/nope', '--dry-run']],
  ])('%s', async (cmd, args) => {
    const r = await floe(cmd, ...args, '--progress', 'json');
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/^floe: /m);
    expect(r.stderr).not.toMatch(/"finish"/);
  });
});

describe('a real process with stderr on a pipe', () => {
  it('prints no JSON progress by default (the demo and cron logs stay readable)', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await spawnFloe(['compact', t.dir, '--dry-run']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).not.toMatch(/"progress"/);
      const j = await spawnFloe(['compact', t.dir, '--dry-run', '--progress', 'json']);
      expect(j.stderr).toMatch(/"progress":"compact"/);
    } finally {
      t.cleanup();
    }
  });
});

describe('every long command reports progress on stderr', () => {
  it.each([
    ['expire', ['--dry-run', '--older-than', '1d', '--retain-last', '1']],
    ['remove-orphans', ['--dry-run']],
    ['rewrite-manifests', ['--dry-run']],
    ['scan', []],
    ['compact', ['--dry-run']],
  ])('%s', async (cmd, extra) => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await floe(cmd, t.dir, ...extra, '--progress', 'json');
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stderr
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { progress: string; event: string });
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.every((l) => l.progress === cmd)).toBe(true);
      expect(lines.at(-1)!.event).toBe('finish');
      if (cmd === 'scan') expect(lines.at(-1)).toMatchObject({ rows: 10 });
      else if (cmd !== 'compact')
        expect((lines.at(-1) as unknown as { filesRead: number }).filesRead).toBeGreaterThan(0);
    } finally {
      t.cleanup();
    }
  });
});
