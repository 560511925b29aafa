/**
 * Time and memory of one synchronous step. Peak RSS comes from a worker thread that samples
 * `process.memoryUsage.rss()` (process-wide) every few milliseconds while the main thread is busy;
 * heap figures come from forced GCs around the step (`--expose-gc`, or enabled at run time).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Worker } from 'node:worker_threads';

export interface Measurement {
  ms: number;
  /** Highest RSS seen while the step ran (sampled every ~2 ms, plus before and after). */
  peakRssBytes: number;
  rssBeforeBytes: number;
  /** Heap in use after a full GC before the step. */
  heapBeforeBytes: number;
  /** Heap in use right after the step, before any GC (live result + garbage). */
  heapAfterBytes: number;
  /** Heap in use after a full GC with the step's result still referenced. */
  heapRetainedBytes: number;
}

let gcFn: (() => void) | undefined;

/** `global.gc` when node runs with --expose-gc; otherwise the flag is switched on now. */
export function forceGc(): void {
  if (!gcFn) {
    const g = (globalThis as { gc?: () => void }).gc;
    if (g) gcFn = g;
    else {
      setFlagsFromString('--expose-gc');
      gcFn = runInNewContext('gc') as () => void;
    }
  }
  gcFn();
  gcFn();
}

const SAMPLER = `
const { parentPort } = require('node:worker_threads');
let peak = 0;
const tick = () => { const r = process.memoryUsage.rss(); if (r > peak) peak = r; };
const timer = setInterval(tick, 2);
parentPort.on('message', (m) => {
  tick();
  if (m === 'reset') { peak = 0; tick(); parentPort.postMessage(peak); }
  else if (m === 'read') parentPort.postMessage(peak);
  else if (m === 'stop') { clearInterval(timer); parentPort.close(); }
});
`;

export class RssSampler {
  private readonly worker = new Worker(SAMPLER, { eval: true });

  private ask(msg: 'reset' | 'read'): Promise<number> {
    return new Promise((resolve) => {
      this.worker.once('message', (v: number) => resolve(v));
      this.worker.postMessage(msg);
    });
  }

  reset(): Promise<number> {
    return this.ask('reset');
  }

  read(): Promise<number> {
    return this.ask('read');
  }

  async stop(): Promise<void> {
    this.worker.postMessage('stop');
    await new Promise((r) => this.worker.once('exit', r));
  }
}

/** Runs `step` once and measures it; `keep` receives the result so it stays referenced for the retained-heap figure. */
export async function measure<T>(
  sampler: RssSampler,
  step: () => T,
  keep: (result: T) => void = () => {},
): Promise<Measurement> {
  forceGc();
  const heapBeforeBytes = process.memoryUsage().heapUsed;
  const rssBeforeBytes = process.memoryUsage.rss();
  await sampler.reset();
  const t0 = performance.now();
  const result = step();
  const ms = performance.now() - t0;
  const heapAfterBytes = process.memoryUsage().heapUsed;
  const peakRssBytes = Math.max(await sampler.read(), process.memoryUsage.rss());
  forceGc();
  const heapRetainedBytes = process.memoryUsage().heapUsed;
  keep(result);
  return { ms, peakRssBytes, rssBeforeBytes, heapBeforeBytes, heapAfterBytes, heapRetainedBytes };
}
