/**
 * Entry point of every WorkerPool thread (worker-pool.ts): imports the job module once, then runs one job
 * at a time on request, passing progress, results and errors back as JSON text.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { isFloeError } from '../../../util/errors.js';
import {
  toJsonText,
  type FromWorker,
  type JobFunction,
  type Json,
  type SerializedError,
  type ToWorker,
} from './worker-pool.js';

const port = parentPort;
if (!port) throw new Error('worker-main.ts must run in a worker thread');
const { module: moduleUrl, index } = workerData as { module: string; index: number };

function serialize(e: unknown): SerializedError {
  if (isFloeError(e)) {
    return {
      name: e.name,
      message: e.message,
      kind: e.kind,
      context: toJsonText(e.context),
      retryable: e.retryable,
      ...(e.stack ? { stack: e.stack } : {}),
    };
  }
  if (e instanceof Error) return { name: e.name, message: e.message, ...(e.stack ? { stack: e.stack } : {}) };
  return { name: 'Error', message: String(e) };
}

const send = (m: FromWorker) => port.postMessage(m);
const running = new Map<number, AbortController>();

async function main(): Promise<void> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(moduleUrl)) as Record<string, unknown>;
  } catch (e) {
    send({ type: 'load-error', error: serialize(e) });
    return;
  }
  port!.on('message', (m: ToWorker) => {
    if (m.type === 'cancel') {
      running.get(m.id)?.abort(new Error(`job ${m.id} cancelled`));
      return;
    }
    const controller = new AbortController();
    running.set(m.id, controller);
    void (async () => {
      try {
        const fn = mod[m.fn];
        if (typeof fn !== 'function') throw new Error(`${moduleUrl} exports no function ${m.fn}`);
        const result = await (fn as JobFunction)(JSON.parse(m.payload) as Json, {
          signal: controller.signal,
          progress: (data) => send({ type: 'progress', id: m.id, data: toJsonText(data) }),
          workerIndex: index,
        });
        send({ type: 'done', id: m.id, result: toJsonText(result) });
      } catch (e) {
        send({ type: 'error', id: m.id, error: serialize(e) });
      } finally {
        running.delete(m.id);
      }
    })();
  });
  send({ type: 'ready' });
}

void main();
