/**
 * Entry of a manifest-decoding worker thread (manifest-workers.ts): decodes the manifests it is sent with
 * the in-thread reader (manifests.ts `decodeManifestBytes`, so the files, checks and errors are the same)
 * and hands each manifest's live files back in the wire form (manifest-wire.ts), buffers transferred.
 */
import { readFileSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { FloeError } from '../../util/errors.js';
import { ManifestFilesWriter, transferList, type WireManifest } from './manifest-wire.js';
import { decodeManifestBytes, type ManifestFile, type ManifestReadContext } from './manifests.js';
import type { DecodeJob, FromManifestWorker, ManifestWorkerData } from './manifest-workers.js';

const data = workerData as ManifestWorkerData;
const ctx: ManifestReadContext = {
  md: data.md,
  fieldsById: data.fieldsById,
  ...(data.snapshotId !== undefined ? { snapshotId: data.snapshotId } : {}),
  ...(data.avroDecoder !== undefined ? { avroDecoder: data.avroDecoder } : {}),
};

function decode(mf: ManifestFile, bytes: Uint8Array, mapped: string): WireManifest {
  const out = new ManifestFilesWriter();
  decodeManifestBytes(
    bytes,
    mf,
    ctx,
    (e) => {
      if (e.status !== 'DELETED') out.add(e.file);
    },
    { map: () => mapped },
  );
  return out.finish();
}

const port = parentPort!;
port.on('message', (job: DecodeJob) => {
  let reply: FromManifestWorker;
  let transfer: ArrayBuffer[] = [];
  try {
    const results = job.items.map((it) => {
      let bytes = it.bytes;
      if (!bytes) {
        try {
          bytes = readFileSync(it.file!);
        } catch {
          return null;
        }
      }
      return decode(it.mf, bytes, it.mapped);
    });
    transfer = results.flatMap((r) => (r ? transferList(r) : []));
    reply = { type: 'done', id: job.id, results };
  } catch (e) {
    const error =
      e instanceof FloeError
        ? { kind: e.kind, message: e.message, context: e.context, cause: causeText(e.cause) }
        : { message: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    reply = { type: 'error', id: job.id, error };
  }
  try {
    port.postMessage(reply, transfer);
  } catch (e) {
    // an error whose context cannot be cloned: the kind and message still get through
    if (reply.type !== 'error') throw e;
    port.postMessage({ ...reply, error: { ...reply.error, context: {} } });
  }
});
port.postMessage({ type: 'ready' } satisfies FromManifestWorker);

function causeText(c: unknown): string | undefined {
  if (c === undefined) return undefined;
  return c instanceof Error ? c.message : String(c);
}
