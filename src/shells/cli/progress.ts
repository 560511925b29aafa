/**
 * Progress of long commands on standard error (standard output holds only the result):
 * - `bar` (default on a terminal): one redrawn line with a bar, counts, rate and ETA. The bar never shows
 *   100 % before the work is finished: while a task is still writing or the commit is pending it stops at 99 %.
 * - `plain` (default when stderr is not a terminal: a pipe, a log, a demo transcript): the bar's message
 *   lines (planned …, committed …, failures) as plain text, and a status line at most every `intervalMs`
 *   (default 10 s) — readable in a log, no escape codes, no JSON noise.
 * - `json` (`--progress=json`): one JSON object per line, on each plan/task/commit event and at most every
 *   `intervalMs` in between — easy to forward to a log or a workflow engine's heartbeat. Each line's `type`
 *   is the library's ProgressEvent type (src/core/execution/events.ts) or one of the CLI's own: `rows`,
 *   `filesRead`, `filesDeleted`, `phase`, `message`, `finish`; `event` carries the same name (kept for
 *   readers of older versions).
 * - `none`: nothing.
 * A command that fails calls `abort()`, not `finish()`: no `finish` line precedes its error.
 */
import type { ProgressEvent, ProgressListener } from '../../core/execution/events.js';
import { FloeError } from '../../../util/errors.js';
import { formatBytes } from '../../../util/units.js';

export { formatBytes };

export type ProgressMode = 'bar' | 'plain' | 'json' | 'none';

const MODES: readonly ProgressMode[] = ['bar', 'plain', 'json', 'none'];

/** `--progress`'s help text, one wording for every command. */
export const PROGRESS_HELP =
  'progress on stderr: auto (bar on a terminal, plain lines otherwise), bar, plain, json (one JSON object per line) or none';

/** The mode `auto` means on this stream: the bar on a terminal, plain lines otherwise. */
export const autoProgressMode = (stream: { isTTY?: boolean }): ProgressMode =>
  stream.isTTY === true ? 'bar' : 'plain';

export function parseProgressMode(
  text: string | undefined,
  stream: { isTTY?: boolean } = process.stderr,
): ProgressMode {
  const t = (text ?? 'auto').toLowerCase();
  if (t === 'auto') return autoProgressMode(stream);
  const mode = MODES.find((m) => m === t);
  if (mode) return mode;
  throw new FloeError('InvalidArgument', `--progress must be auto, bar, plain, json or none, got "${text}"`);
}

export interface ProgressSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  mode?: ProgressMode;
  /** Which command the lines belong to ("compact", "expire" …). */
  command?: string;
  /** Clock, for rates and ETA (tests pass a fake one). */
  now?: () => number;
  /** Minimum time between periodic lines/redraws (default 1000 ms for json, 10 s for plain, 200 ms for the bar). */
  intervalMs?: number;
}

/** A snapshot of the counters, as the JSON lines carry it. */
export interface ProgressState {
  phase: string;
  tasks: number;
  tasksDone: number;
  tasksFailed: number;
  bytesTotal: number;
  bytesRead: number;
  bytesWritten: number;
  filesRead: number;
  filesWritten: number;
  filesDeleted: number;
  rows: number;
  committed: boolean;
}

export interface Progress {
  listener: ProgressListener;
  /** Counters for commands without task events (scan rows, listings, deletes). */
  count(what: 'rows' | 'filesRead' | 'filesDeleted', n: number, bytes?: number): void;
  phase(name: string): void;
  /** Final line (a newline after the bar, a `finish` JSON line) — call once when the command succeeded. */
  finish(): void;
  /** The command failed: end the bar's line, print no `finish` event (the error follows). */
  abort(): void;
  readonly state: ProgressState;
}

function bar(frac: number, width = 24): string {
  const fill = Math.max(0, Math.min(width, Math.floor(frac * width)));
  return `[${'#'.repeat(fill)}${'-'.repeat(width - fill)}]`;
}

function eta(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '--';
  if (seconds < 60) return `${Math.ceil(seconds)}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(Math.ceil(seconds % 60)).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}

export function createProgress(stream: ProgressSink = process.stderr, o: ProgressOptions = {}): Progress {
  const mode = o.mode ?? autoProgressMode(stream);
  const now = o.now ?? Date.now;
  const interval = o.intervalMs ?? (mode === 'json' ? 1000 : mode === 'plain' ? 10_000 : 200);
  const started = now();
  // plain lines are for logs: the first status line only once the interval has passed
  let lastDraw = mode === 'plain' ? started : -Infinity;
  let barShown = false;
  let finished = false;
  const s: ProgressState = {
    phase: 'starting',
    tasks: 0,
    tasksDone: 0,
    tasksFailed: 0,
    bytesTotal: 0,
    bytesRead: 0,
    bytesWritten: 0,
    filesRead: 0,
    filesWritten: 0,
    filesDeleted: 0,
    rows: 0,
    committed: false,
  };

  /** Fraction done; below 1 until every task has ended and the commit (if any) is published. */
  const fraction = (): number | undefined => {
    if (finished || s.committed) return 1;
    if (s.tasks === 0) return undefined;
    const ended = s.tasksDone + s.tasksFailed;
    let f = s.bytesTotal > 0 ? Math.min(1, s.bytesRead / s.bytesTotal) : ended / s.tasks;
    // reading ends before writing and committing do: never claim 100 % before they finish
    if (ended < s.tasks || !s.committed) f = Math.min(f, 0.99);
    return f;
  };
  const rate = (): number => {
    const secs = (now() - started) / 1000;
    return secs > 0 ? s.bytesRead / secs : 0;
  };

  const text = (): string => {
    const f = fraction();
    const parts: string[] = [];
    if (f !== undefined) parts.push(`${bar(f)} ${Math.floor(f * 100)}%`);
    parts.push(s.phase);
    if (s.tasks)
      parts.push(`${s.tasksDone + s.tasksFailed}/${s.tasks} tasks${s.tasksFailed ? ` (${s.tasksFailed} failed)` : ''}`);
    if (s.bytesRead || s.bytesTotal)
      parts.push(`${formatBytes(s.bytesRead)}${s.bytesTotal ? `/${formatBytes(s.bytesTotal)}` : ''} read`);
    if (s.bytesWritten) parts.push(`${formatBytes(s.bytesWritten)} written`);
    if (s.rows) parts.push(`${s.rows} rows`);
    if (s.filesDeleted) parts.push(`${s.filesDeleted} deleted`);
    if (!s.tasks && s.filesRead) parts.push(`${s.filesRead} files read`);
    const r = rate();
    if (r > 0) {
      parts.push(`${formatBytes(r)}/s`);
      if (s.bytesTotal > s.bytesRead && f !== undefined && f < 1)
        parts.push(`ETA ${eta((s.bytesTotal - s.bytesRead) / r)}`);
    }
    return parts.join('  ');
  };

  const json = (event: string): string => {
    const r = rate();
    const f = fraction();
    return `${JSON.stringify({
      progress: o.command ?? 'floe',
      type: event,
      event,
      elapsedMs: now() - started,
      ...s,
      ...(f !== undefined ? { fraction: Math.floor(f * 1000) / 1000 } : {}),
      bytesPerSecond: Math.round(r),
      ...(r > 0 && s.bytesTotal > s.bytesRead ? { etaSeconds: Math.ceil((s.bytesTotal - s.bytesRead) / r) } : {}),
    })}\n`;
  };

  /** A line or redraw now (`force`, for milestones) or when the interval has passed. */
  const draw = (event: string, force: boolean) => {
    if (mode === 'none') return;
    const t = now();
    if (!force && t - lastDraw < interval) return;
    lastDraw = t;
    if (mode === 'json') stream.write(json(event));
    else if (mode === 'plain') {
      // milestones are said as messages; a status line only when the interval has passed
      if (!force) stream.write(`${text()}\n`);
    } else {
      stream.write(`\r${text()}\x1b[K`);
      barShown = true;
    }
  };
  /** A message line: in bar mode it goes above the bar, which is redrawn after it. */
  const say = (line: string) => {
    if (mode === 'none') return;
    if (mode === 'json') {
      stream.write(
        `${JSON.stringify({ progress: o.command ?? 'floe', type: 'message', event: 'message', text: line })}\n`,
      );
      return;
    }
    if (mode === 'plain') {
      stream.write(`${line}\n`);
      return;
    }
    stream.write(`${barShown ? '\r\x1b[K' : ''}${line}\n`);
    barShown = false;
    draw('message', true);
  };

  const listener: ProgressListener = (e: ProgressEvent) => {
    switch (e.type) {
      case 'plan':
        s.tasks = e.tasks;
        s.bytesTotal = e.inputBytes;
        s.phase = e.tasks ? 'rewriting' : 'nothing to rewrite';
        if (mode === 'bar' || mode === 'plain')
          say(`planned ${e.tasks} task(s) over ${e.inputFiles} file(s), ${formatBytes(e.inputBytes)}`);
        draw('plan', true);
        return;
      case 'task-start':
        return draw('task-start', false);
      case 'file-read':
        s.bytesRead += e.bytes;
        s.filesRead++;
        return draw('file-read', false);
      case 'file-written':
        s.bytesWritten += e.bytes;
        s.filesWritten++;
        return draw('file-written', false);
      case 'task-done':
        s.tasksDone++;
        if (s.tasksDone + s.tasksFailed === s.tasks) s.phase = 'committing';
        return draw('task-done', true);
      case 'task-failed':
        s.tasksFailed++;
        if (s.tasksDone + s.tasksFailed === s.tasks) s.phase = 'committing';
        say(`task ${e.taskId} failed: ${e.error}`);
        return draw('task-failed', true);
      case 'commit':
        s.committed = true;
        s.phase = 'committed';
        say(`committed snapshot ${e.snapshotId} (${e.groups} group(s), attempt ${e.attempt})`);
        return draw('commit', true);
      case 'commit-retry':
        say(`commit conflict, retrying (attempt ${e.attempt}): ${e.reason}`);
        return;
      case 'deleted':
        s.filesDeleted++;
        return draw('deleted', false);
      case 'message':
        say(`${e.level}: ${e.text}`);
        return;
      default:
        return;
    }
  };

  return {
    listener,
    state: s,
    count(what, n, bytes) {
      s[what] += n;
      if (bytes) s.bytesRead += bytes;
      draw(what, false);
    },
    phase(name) {
      if (s.phase === name) return;
      s.phase = name;
      draw('phase', false);
    },
    finish() {
      if (finished) return;
      finished = true;
      s.phase = 'done';
      if (mode === 'json') stream.write(json('finish'));
      else if (mode === 'bar' && barShown) stream.write(`\r${text()}\x1b[K\n`);
    },
    abort() {
      if (finished) return;
      finished = true;
      if (mode === 'bar' && barShown) stream.write('\n');
    },
  };
}

/** The renderer the compaction job takes (kept for callers of the old API). */
export function progressRenderer(stream: ProgressSink = process.stderr, mode?: ProgressMode): ProgressListener {
  return createProgress(stream, mode ? { mode } : {}).listener;
}
