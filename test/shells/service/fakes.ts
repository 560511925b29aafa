/** A hand-stepped clock and a job runner whose jobs end when the test says so. */
import type { Clock, LogEntry, RunJob } from '../../../src/shells/service/service.js';
import type { MaintenanceJobResult, MaintenanceJobSpec } from '../../../src/orchestration/job-types.js';

export class FakeClock implements Clock {
  private timers = new Map<number, { at: number; fn: () => void }>();
  private nextId = 1;
  constructor(public t: number) {}
  now(): number {
    return this.t;
  }
  setTimer(fn: () => void, ms: number): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.t + ms, fn });
    return id;
  }
  clearTimer(h: unknown): void {
    this.timers.delete(h as number);
  }
  /** Moves time without firing timers: tests call `tick()` themselves. */
  set(t: number): void {
    this.t = t;
  }
}

export interface PendingJob {
  spec: MaintenanceJobSpec;
  signal: AbortSignal | undefined;
  succeed(extra?: Partial<MaintenanceJobResult>): void;
  fail(error: Error): void;
}

export class FakeRunner {
  readonly calls: PendingJob[] = [];
  readonly run: RunJob = (spec, opts) =>
    new Promise<MaintenanceJobResult>((resolve, reject) => {
      this.calls.push({
        spec,
        signal: opts.signal,
        succeed: (extra = {}) => resolve(okResult(spec, extra)),
        fail: reject,
      });
    });
  /** Jobs started so far, as `table/job`. */
  started(): string[] {
    return this.calls.map((c) => `${c.spec.table}/${c.spec.job}`);
  }
}

export function okResult(spec: MaintenanceJobSpec, extra: Partial<MaintenanceJobResult> = {}): MaintenanceJobResult {
  return {
    table: spec.table,
    job: spec.job,
    format: 'iceberg',
    ok: true,
    dryRun: false,
    startedAtMs: 0,
    durationMs: 5,
    snapshotIds: [],
    expiredSnapshotIds: [],
    bytesRead: 0,
    bytesWritten: 0,
    bytesDeleted: 0,
    filesDeleted: 0,
    failures: [],
    warnings: [],
    ...extra,
  };
}

export class LogCollector {
  readonly entries: LogEntry[] = [];
  readonly sink = (e: LogEntry) => void this.entries.push(e);
  events(event: string): LogEntry[] {
    return this.entries.filter((e) => e.event === event);
  }
}

/** Polls (yielding to I/O) until `cond` holds; job completions write state files before ticking on. */
export async function waitFor(cond: () => boolean, what = 'condition', timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}
