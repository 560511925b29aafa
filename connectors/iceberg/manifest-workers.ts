/**
 * Decoding a snapshot's manifests on every core (issue 11.6): a small pool of worker threads, started for
 * one table load and stopped after it. Local manifests are read by the workers; others are read by the main
 * thread through the table's IO and their bytes transferred. A manifest a worker cannot read is read and
 * decoded on the main thread, so a missing file fails exactly as in-thread. A worker decodes with the
 * in-thread reader and transfers back the live files in the wire form (manifest-wire.ts); no structured
 * clone of a million objects in either direction. Errors come back as the same FloeError kind, message
 * and context the in-thread reader gives.
 *
 * A dedicated pool, not src/core/execution/worker-pool.ts: that one carries JSON payloads; this one moves
 * ArrayBuffers. Small tables never get here (manifests.ts `liveFilesOf` decodes them in-thread).
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import pLimit from 'p-limit';
import { FloeError, type FloeErrorKind } from '../../util/errors.js';
import type { ContentFile, Field } from '../../model/index.js';
import type { IcebergIO } from './io.js';
import type { IcebergMetadata } from './metadata.js';
import { decodeManifestFiles, SlabArena, type WireManifest } from './manifest-wire.js';
import { FileIO } from '../storage/file-io.js';
import { LocalObjectStore } from '../storage/local-store.js';
import { forEachManifestEntry, readManifestBytes, type ManifestFile, type ManifestReadContext } from './manifests.js';

/** What every worker gets at start (structured clone, once). */
export interface ManifestWorkerData {
  md: IcebergMetadata;
  fieldsById: Map<number, Field>;
  snapshotId?: bigint;
  avroDecoder?: 'direct' | 'avsc';
}

export interface DecodeJob {
  id: number;
  /** `bytes` read by the caller, or `file`: a local path the worker reads itself. */
  items: { mf: ManifestFile; bytes?: Uint8Array; file?: string; mapped: string }[];
}

export interface WorkerError {
  kind?: FloeErrorKind;
  message: string;
  context?: Record<string, unknown>;
  cause?: string;
}

export type FromManifestWorker =
  | { type: 'ready' }
  /** null: the worker could not read `file` (the caller reads it, and fails as the in-thread reader would). */
  | { type: 'done'; id: number; results: (WireManifest | null)[] }
  | { type: 'error'; id: number; error: WorkerError };

/**
 * No worker thread could be started (e.g. floe bundled without its worker module): the caller decodes in
 * its own thread instead. Nothing has been decoded or handed out when this is thrown.
 */
export class WorkersUnavailable extends Error {
  constructor(cause: unknown) {
    super(`manifest decoding workers unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'WorkersUnavailable';
  }
}

/** Jobs in flight per worker. */
const DEPTH = 8;

const isTypeScript = (u: string) => /\.[cm]?ts$/.test(new URL(u).pathname);

/** The worker entry: the compiled module, or (running from sources) a bootstrap that registers tsx first. */
function workerEntry(): { entry: URL | string; eval: boolean } {
  const ts = isTypeScript(import.meta.url);
  const main = new URL(ts ? './manifest-worker-main.ts' : './manifest-worker-main.js', import.meta.url);
  if (!ts) return { entry: main, eval: false };
  const pkg = createRequire(import.meta.url).resolve('tsx/package.json');
  const api = pathToFileURL(path.join(path.dirname(pkg), 'dist/esm/api/index.mjs')).href;
  const code = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(main.href)}); })`;
  return { entry: code, eval: true };
}

function rebuild(e: WorkerError): Error {
  if (!e.kind) return new FloeError('Internal', `manifest decoding worker failed: ${e.message}`);
  return new FloeError(e.kind, e.message, {
    ...(e.context ? { context: e.context } : {}),
    ...(e.cause !== undefined ? { cause: new Error(e.cause) } : {}),
  });
}

class ManifestWorker {
  private readonly worker: Worker;
  private readonly ready: Promise<void>;
  private readonly pending = new Map<number, { resolve(r: (WireManifest | null)[]): void; reject(e: unknown): void }>();
  private failure: Error | undefined;
  private started = false;

  constructor(data: ManifestWorkerData) {
    try {
      const { entry, eval: isEval } = workerEntry();
      this.worker = new Worker(entry, { eval: isEval, workerData: data });
    } catch (e) {
      throw new WorkersUnavailable(e);
    }
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (m: FromManifestWorker) => {
        if (m.type === 'ready') {
          this.started = true;
          return resolve();
        }
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (m.type === 'done') p.resolve(m.results);
        else p.reject(rebuild(m.error));
      });
      const fail = (cause: Error) => {
        const e = this.started ? cause : new WorkersUnavailable(cause);
        this.failure ??= e;
        reject(e);
        for (const p of this.pending.values()) p.reject(e);
        this.pending.clear();
      };
      this.worker.on('error', (e) =>
        fail(new FloeError('Internal', `manifest decoding worker failed: ${e.message}`, { cause: e })),
      );
      this.worker.on('exit', (code) =>
        fail(new FloeError('Internal', `manifest decoding worker exited (code ${code})`)),
      );
    });
    this.ready.catch(() => {});
  }

  async run(job: DecodeJob): Promise<(WireManifest | null)[]> {
    await this.ready;
    if (this.failure) throw this.failure;
    return new Promise((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      const transfer = job.items.flatMap((it) => (it.bytes ? [it.bytes.buffer as ArrayBuffer] : []));
      this.worker.postMessage(job, transfer);
    });
  }

  async stop(): Promise<void> {
    await this.worker.terminate();
  }
}

/** Bytes that can be transferred: exactly one ArrayBuffer of their own (a pooled or shared one is copied). */
function transferable(b: Uint8Array): Uint8Array {
  return b.byteOffset === 0 && b.byteLength === b.buffer.byteLength && b.buffer instanceof ArrayBuffer
    ? b
    : new Uint8Array(b);
}

/**
 * Every manifest's live files, in manifest order, decoded by `workers` threads. Jobs of a few manifests
 * each; at most `DEPTH` jobs per worker in flight, so read-ahead (and memory) stays bounded.
 */
export async function liveFilesInWorkers(
  io: IcebergIO,
  manifests: readonly ManifestFile[],
  ctx: ManifestReadContext,
  workers: number,
): Promise<ContentFile[][]> {
  const data: ManifestWorkerData = {
    // the raw JSON is not needed to decode manifests (and may be large)
    md: { ...ctx.md, raw: {} },
    fieldsById: ctx.fieldsById,
    ...(ctx.snapshotId !== undefined ? { snapshotId: ctx.snapshotId } : {}),
    ...(ctx.avroDecoder !== undefined ? { avroDecoder: ctx.avroDecoder } : {}),
  };
  const pool: ManifestWorker[] = [];
  try {
    for (let i = 0; i < workers; i++) pool.push(new ManifestWorker(data));
  } catch (e) {
    await Promise.all(pool.map((w) => w.stop()));
    throw e;
  }
  const out: ContentFile[][] = new Array<ContentFile[]>(manifests.length);
  const per = Math.max(1, Math.min(8, Math.ceil(manifests.length / (workers * DEPTH))));
  const jobs: number[] = [];
  for (let i = 0; i < manifests.length; i += per) jobs.push(i);
  // Several jobs per worker in flight: on a busy machine the main thread may wait tens of ms for a core,
  // and a worker must not run dry meanwhile. Local manifests cross as paths, so the bound is mostly on
  // results waiting for the main thread (a few MB).
  const idle = Array.from({ length: DEPTH }, () => pool).flat();
  const arena = new SlabArena();
  let nextId = 0;
  const mapName = (p: string): string => {
    try {
      return io.map(p);
    } catch {
      return p;
    }
  };
  // Local files are read by the workers themselves (fs on the main thread costs as much as decoding).
  const localPath = (p: string): string | undefined => {
    if (!(io instanceof FileIO)) return undefined;
    try {
      const r = io.resolve(p);
      return r.store instanceof LocalObjectStore ? path.join(r.store.root, r.key) : undefined;
    } catch {
      return undefined;
    }
  };
  try {
    await pLimit(idle.length).map(jobs, async (from) => {
      const slice = manifests.slice(from, from + per);
      const items = await Promise.all(
        slice.map(async (mf) => {
          const file = localPath(mf.path);
          const mapped = mapName(mf.path);
          if (file !== undefined) return { mf, file, mapped };
          return { mf, bytes: transferable(await readManifestBytes(io, mf, ctx)), mapped };
        }),
      );
      const worker = idle.shift()!;
      let results: (WireManifest | null)[];
      try {
        results = await worker.run({ id: nextId++, items });
      } finally {
        idle.push(worker);
      }
      for (let k = 0; k < results.length; k++) {
        const r = results[k];
        if (r) out[from + k] = decodeManifestFiles(r, ctx.fieldsById, arena);
        else {
          // unreadable where the worker looked: read and decode it here, with the in-thread reader's errors
          const live: ContentFile[] = [];
          await forEachManifestEntry(io, slice[k]!, ctx, (e) => {
            if (e.status !== 'DELETED') live.push(e.file);
          });
          out[from + k] = live;
        }
      }
    });
  } finally {
    await Promise.all(pool.map((w) => w.stop()));
  }
  return out;
}
