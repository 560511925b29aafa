/**
 * A pool of worker threads for CPU-bound jobs (Parquet decode/encode): each worker imports one module once
 * — so each has its own parquet-wasm instance — and runs that module's exported functions as jobs.
 *
 * Caller side:
 *   const pool = new WorkerPool({ module: new URL('./group-worker.js', import.meta.url) });
 *   const result = await pool.run('rewriteGroup', payload, { signal, onProgress: (p) => … });
 *   await pool.close();
 *
 * - `size` workers (default `os.availableParallelism()`), started lazily, one job at a time each.
 * - Bounded queue: at most `maxQueued` jobs (default 2 × size) wait for a worker; `submit()` resolves once its
 *   job is accepted, so a producer that awaits it is held back; `run()` is `submit()` plus the result.
 * - Payloads, results and progress are JSON: they cross as JSON text, bigints as decimal strings (the seam's
 *   convention — the receiver converts them back). Anything else JSON cannot carry is the caller's to encode.
 * - `signal`: a queued job is dropped; a running one gets a cancel message and its job context's `signal`
 *   aborts (the job stops at its next check, e.g. between row groups). A worker that has not ended the job
 *   `cancelGraceMs` later is terminated. Either way the job rejects with an `AbortError`.
 * - A worker that dies (uncaught error, process.exit, OOM) rejects the job it was running with a FloeError
 *   naming the worker, the function and the exit; it is replaced for the jobs still queued. A module that
 *   cannot be loaded fails every queued and later job with the load error.
 * - A job's own error comes back as a FloeError with its kind and context when it was one, else an Error
 *   with the worker's message (and its stack as `cause`).
 * - `close()` lets queued and running jobs finish, then stops the workers; `terminate()` rejects them and
 *   stops the workers at once.
 *
 * Worker side: the module's job functions are `(payload: Json, ctx: JobContext) => Json | Promise<Json>`.
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FloeError, type FloeErrorKind } from '../../../util/errors.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** What a job function gets besides its payload (worker side). */
export interface JobContext {
  /** Aborts when the caller cancels the job. */
  signal: AbortSignal;
  /** Sends a progress message to the caller's `onProgress`. */
  progress(data: Json): void;
  /** 0-based index of the worker running the job (for logs). */
  workerIndex: number;
}

export type JobFunction = (payload: Json, ctx: JobContext) => Json | Promise<Json>;

export interface WorkerPoolOptions {
  /** Module every worker imports; its named exports are the job functions. */
  module: string | URL;
  /** Worker threads (default os.availableParallelism()). */
  size?: number;
  /** Jobs waiting for a free worker before submit() holds the caller back (default 2 × size). */
  maxQueued?: number;
  /** How long a cancelled job may take to end before its worker is terminated (default 10 s). */
  cancelGraceMs?: number;
  /** Name in error messages (default 'worker pool'). */
  name?: string;
  /**
   * Extra Node options for the workers (a TypeScript job module is loaded through tsx automatically).
   * Default: the process's own CPU-profiling options (`--cpu-prof`, `--cpu-prof-dir`, `--cpu-prof-interval`),
   * so a profiled run profiles its workers too — where the decode, encode and delete work happens.
   */
  execArgv?: string[];
  /**
   * The young generation of each worker's heap, MiB (V8's resourceLimits.maxYoungGenerationSizeMb; default
   * V8's, which lets each worker commit ~30 MiB of semispaces it may never need).
   */
  youngGenerationMb?: number;
}

export interface RunOptions {
  signal?: AbortSignal;
  onProgress?: (data: Json) => void;
}

/** Messages between the pool and worker-main.ts. */
export type ToWorker = { type: 'run'; id: number; fn: string; payload: string } | { type: 'cancel'; id: number };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'load-error'; error: SerializedError }
  | { type: 'progress'; id: number; data: string }
  | { type: 'done'; id: number; result: string }
  | { type: 'error'; id: number; error: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  kind?: string;
  context?: string;
  retryable?: boolean;
}

/** JSON text with bigints as decimal strings. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? 'null';
}

interface Job {
  id: number;
  fn: string;
  payload: string;
  options: RunOptions;
  resolve(v: Json): void;
  reject(e: unknown): void;
  slot?: Slot;
  cancelled?: boolean;
  graceTimer?: NodeJS.Timeout;
  detach?: () => void;
}

interface Slot {
  index: number;
  worker: Worker;
  ready: boolean;
  job?: Job;
  exited: boolean;
  lastError?: Error;
}

function abortError(what: string, cause?: unknown): Error {
  const e = new Error(`${what} was cancelled`, cause === undefined ? undefined : { cause });
  e.name = 'AbortError';
  return e;
}

function rebuildError(s: SerializedError, where: string): Error {
  const context = s.context ? (JSON.parse(s.context) as Record<string, unknown>) : {};
  if (s.kind) {
    return new FloeError(s.kind as FloeErrorKind, s.message, {
      context: { ...context, worker: where },
      ...(s.retryable !== undefined ? { retryable: s.retryable } : {}),
    });
  }
  const e = new Error(s.message, s.stack ? { cause: `${where}: ${s.stack}` } : undefined);
  e.name = s.name;
  return e;
}

const isTypeScript = (u: string) => /\.[cm]?ts$/.test(new URL(u).pathname);

/**
 * The CPU-profiling options among `argv` (both `--opt=value` and `--opt value`), for the workers. Not
 * `--cpu-prof-name`: every worker would write to the same file.
 */
export function cpuProfileArgs(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--cpu-prof') out.push(a);
    else if (/^--cpu-prof-(dir|interval)=/.test(a)) out.push(a);
    else if ((a === '--cpu-prof-dir' || a === '--cpu-prof-interval') && i + 1 < argv.length) out.push(a, argv[++i]!);
  }
  return out;
}

export class WorkerPool {
  readonly size: number;
  readonly maxQueued: number;
  private readonly moduleUrl: string;
  private readonly mainUrl: URL;
  private readonly execArgv: string[];
  private readonly youngGenerationMb: number | undefined;
  private readonly tsx: boolean;
  private readonly name: string;
  private readonly grace: number;
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private readonly roomWaiters: (() => void)[] = [];
  private readonly drainWaiters: (() => void)[] = [];
  private nextId = 1;
  private nextIndex = 0;
  private closing = false;
  private loadError: Error | undefined;

  constructor(options: WorkerPoolOptions) {
    this.size = Math.max(1, Math.floor(options.size ?? os.availableParallelism()));
    this.maxQueued = Math.max(1, Math.floor(options.maxQueued ?? 2 * this.size));
    this.moduleUrl = String(options.module instanceof URL ? options.module.href : new URL(options.module, 'file:///'));
    this.name = options.name ?? 'worker pool';
    this.grace = options.cancelGraceMs ?? 10_000;
    const self = import.meta.url;
    this.mainUrl = new URL(isTypeScript(self) ? './worker-main.ts' : './worker-main.js', self);
    this.tsx = isTypeScript(self) || isTypeScript(this.moduleUrl);
    this.execArgv = options.execArgv ?? cpuProfileArgs(process.execArgv);
    this.youngGenerationMb = options.youngGenerationMb;
  }

  /**
   * Running from TypeScript sources (tests): `--import tsx` in a worker's execArgv does not apply to its
   * entry module, so the worker starts from a one-line bootstrap that registers tsx, then imports the entry.
   */
  private workerEntry(): { entry: URL | string; eval: boolean } {
    if (!this.tsx) return { entry: this.mainUrl, eval: false };
    let api: string;
    try {
      const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
      api = pathToFileURL(path.join(path.dirname(pkg), 'dist/esm/api/index.mjs')).href;
    } catch (e) {
      throw new FloeError(
        'Unsupported',
        `${this.name}: a TypeScript job module needs the tsx package to run in a worker`,
        {
          cause: e,
        },
      );
    }
    const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(this.mainUrl.href)}); })`;
    return { entry: code, eval: true };
  }

  /** Jobs waiting for a worker. */
  get queued(): number {
    return this.queue.length;
  }

  /** Jobs being run by a worker. */
  get running(): number {
    return this.slots.filter((s) => s.job).length;
  }

  /** Runs `fn(payload)` in a worker; resolves with its result. Waits for queue room first. */
  async run(fn: string, payload: unknown, options: RunOptions = {}): Promise<Json> {
    const { result } = await this.submit(fn, payload, options);
    return result;
  }

  /**
   * Queues `fn(payload)`; resolves once the job is accepted (after waiting for room in the bounded queue),
   * with the job's result promise.
   */
  async submit(fn: string, payload: unknown, options: RunOptions = {}): Promise<{ result: Promise<Json> }> {
    const text = toJsonText(payload);
    while (this.queue.length >= this.maxQueued && !this.closing && !this.loadError) {
      if (options.signal?.aborted) throw abortError(`job ${fn}`, options.signal.reason);
      await new Promise<void>((r) => {
        // woken by room in the queue, or by the caller's abort while waiting for it
        this.roomWaiters.push(r);
        options.signal?.addEventListener(
          'abort',
          () => {
            const i = this.roomWaiters.indexOf(r);
            if (i >= 0) this.roomWaiters.splice(i, 1); // so it does not take another submit's wake-up
            r();
          },
          { once: true },
        );
      });
    }
    if (this.closing) throw new FloeError('InvalidArgument', `${this.name} is closed; cannot run ${fn}`);
    if (this.loadError) throw this.loadError;
    if (options.signal?.aborted) throw abortError(`job ${fn}`, options.signal.reason);
    let resolve!: (v: Json) => void;
    let reject!: (e: unknown) => void;
    const result = new Promise<Json>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    result.catch(() => undefined); // the caller may attach its handler later
    const job: Job = { id: this.nextId++, fn, payload: text, options, resolve, reject };
    if (options.signal) {
      const signal = options.signal;
      const onAbort = () => this.cancel(job, signal.reason);
      signal.addEventListener('abort', onAbort, { once: true });
      job.detach = () => signal.removeEventListener('abort', onAbort);
    }
    this.queue.push(job);
    this.dispatch();
    return { result };
  }

  /** Stops taking jobs, lets queued and running ones finish, then stops the workers. */
  async close(): Promise<void> {
    this.closing = true;
    this.wakeRoom();
    while (this.queue.length > 0 || this.running > 0) await new Promise<void>((r) => this.drainWaiters.push(r));
    await this.stopWorkers();
  }

  /** Rejects queued and running jobs and stops the workers now. */
  async terminate(): Promise<void> {
    this.closing = true;
    this.wakeRoom();
    for (const job of this.queue.splice(0))
      this.settle(job, new FloeError('Internal', `${this.name} terminated before ${job.fn} started`));
    for (const s of this.slots) {
      if (s.job) this.settle(s.job, new FloeError('Internal', `${this.name} terminated while ${s.job.fn} ran`));
      s.job = undefined;
    }
    await this.stopWorkers();
  }

  private async stopWorkers(): Promise<void> {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => (s.exited ? undefined : s.worker.terminate())));
  }

  private wakeRoom(): void {
    for (const w of this.roomWaiters.splice(0)) w();
  }

  private wakeDrain(): void {
    if (this.queue.length === 0 && this.running === 0) for (const w of this.drainWaiters.splice(0)) w();
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.slots.find((s) => s.ready && !s.job && !s.exited);
      if (!idle) {
        const starting = this.slots.filter((s) => !s.ready && !s.exited).length;
        if (this.slots.length < this.size && starting < this.queue.length) this.spawn();
        return;
      }
      const job = this.queue.shift()!;
      job.slot = idle;
      idle.job = job;
      idle.worker.postMessage({ type: 'run', id: job.id, fn: job.fn, payload: job.payload } satisfies ToWorker);
      this.roomWaiters.shift()?.();
    }
  }

  private spawn(): void {
    const index = this.nextIndex++;
    const { entry, eval: isEval } = this.workerEntry();
    const worker = new Worker(entry, {
      eval: isEval,
      workerData: { module: this.moduleUrl, index },
      execArgv: this.execArgv,
      ...(this.youngGenerationMb ? { resourceLimits: { maxYoungGenerationSizeMb: this.youngGenerationMb } } : {}),
    });
    const slot: Slot = { index, worker, ready: false, exited: false };
    this.slots.push(slot);
    worker.on('message', (m: FromWorker) => this.onMessage(slot, m));
    worker.on('error', (e) => {
      slot.lastError = e;
    });
    worker.on('exit', (code) => this.onExit(slot, code));
  }

  private onMessage(slot: Slot, m: FromWorker): void {
    const where = `${this.name} worker ${slot.index}`;
    if (m.type === 'ready') {
      slot.ready = true;
      this.dispatch();
      return;
    }
    if (m.type === 'load-error') {
      this.failLoad(m.error.message);
      void slot.worker.terminate();
      return;
    }
    const job = slot.job;
    if (!job || job.id !== m.id) return; // a late message of a job already settled (cancelled, terminated)
    if (m.type === 'progress') {
      if (!job.cancelled) {
        try {
          job.options.onProgress?.(JSON.parse(m.data) as Json);
        } catch {
          // a broken progress sink must not fail the job
        }
      }
      return;
    }
    slot.job = undefined;
    if (m.type === 'done') this.settle(job, undefined, JSON.parse(m.result) as Json);
    else
      this.settle(
        job,
        job.cancelled ? abortError(`job ${job.fn}`, rebuildError(m.error, where)) : rebuildError(m.error, where),
      );
    this.dispatch();
    this.wakeDrain();
  }

  private onExit(slot: Slot, code: number): void {
    slot.exited = true;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    const job = slot.job;
    slot.job = undefined;
    if (job) {
      if (job.cancelled) this.settle(job, abortError(`job ${job.fn}`, slot.lastError));
      else {
        const why = slot.lastError ? `: ${slot.lastError.message}` : '';
        this.settle(
          job,
          new FloeError(
            'Internal',
            `${this.name} worker ${slot.index} died running ${job.fn} (exit code ${code})${why}`,
            {
              context: { worker: slot.index, fn: job.fn, exitCode: code },
              cause: slot.lastError,
            },
          ),
        );
      }
    }
    if (!slot.ready && !this.loadError && !this.closing) {
      // died before loading the module: every worker would, so fail the queue instead of respawning forever
      const why = slot.lastError ? slot.lastError.message : `exit code ${code}`;
      this.failLoad(`worker ${slot.index} exited while starting: ${why}`);
    }
    this.dispatch();
    this.wakeDrain();
  }

  private failLoad(why: string): void {
    this.loadError ??= new FloeError('Internal', `${this.name}: cannot load ${this.moduleUrl} in a worker: ${why}`, {
      context: { module: this.moduleUrl },
    });
    for (const job of this.queue.splice(0)) this.settle(job, this.loadError);
    this.wakeRoom();
  }

  private cancel(job: Job, reason: unknown): void {
    if (job.cancelled) return;
    job.cancelled = true;
    const q = this.queue.indexOf(job);
    if (q >= 0) {
      this.queue.splice(q, 1);
      this.settle(job, abortError(`job ${job.fn}`, reason));
      this.roomWaiters.shift()?.();
      this.wakeDrain();
      return;
    }
    const slot = job.slot;
    if (!slot || slot.job !== job) return;
    slot.worker.postMessage({ type: 'cancel', id: job.id } satisfies ToWorker);
    job.graceTimer = setTimeout(() => void slot.worker.terminate(), this.grace);
    job.graceTimer.unref();
  }

  private settle(job: Job, error: unknown, value?: Json): void {
    if (job.graceTimer) clearTimeout(job.graceTimer);
    job.detach?.();
    if (error !== undefined) job.reject(error);
    else job.resolve(value ?? null);
  }
}
