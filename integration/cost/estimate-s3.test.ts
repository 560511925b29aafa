/**
 * Issue 25's must-show on the real S3 server: a dry run's estimate of a compaction, an expire and an
 * orphan cleanup is within ±10 % of what the real run then asked of the server — counted twice, by floe's
 * request counter (`measured`) and independently by a counting proxy between floe and the server, which sees
 * every HTTP request (retries included). Requests and bytes are deterministic, so this is a test; CPU is
 * not, so its ±30 % is shown by the bench (`npm run bench -- estimate`, bench/RESULTS.md).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemoTable } from '../../src/demo/seed.js';
import { compactTable } from '../../src/app/compact.js';
import { expireTable } from '../../src/app/expire.js';
import { removeTableOrphans } from '../../src/app/remove-orphans.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import type { RequestFigures, RunEstimate, MeasuredRun } from '../../model/index.js';
import { acquireS3, type S3TestServer } from '../support/s3-server.js';
import { startFaultProxy, type FaultEvent, type FaultProxy } from '../support/s3-fault-proxy.js';
import { readImage, uploadImage } from '../faults/campaign-support.js';

const s3 = await acquireS3();
const server = (s3.available ? s3.server : undefined) as S3TestServer;

/** The billing kind of one HTTP request, as floe's counter counts it. */
function kindOf(e: FaultEvent): keyof RequestFigures {
  if (e.method === 'HEAD') return 'head';
  if (e.method === 'GET') return /(^|&)list-type=2/.test(e.query) ? 'list' : 'get';
  if (e.method === 'DELETE') return 'delete'; // (an aborted multipart upload too)
  if (e.method === 'POST' && /(^|&)delete(=|&|$)/.test(e.query)) return 'delete';
  return 'put'; // PUT, UploadPart, CreateMultipartUpload / CompleteMultipartUpload (POST)
}

function proxyCounts(events: readonly FaultEvent[]): RequestFigures {
  const out: RequestFigures = { get: 0, put: 0, list: 0, delete: 0, head: 0 };
  for (const e of events) out[kindOf(e)]++;
  return out;
}

const total = (r: RequestFigures) => r.get + r.put + r.list + r.delete + r.head;

/** Each kind within ±10 % (at least ±1 request, for the kinds a run asks once or twice), the total within ±10 %. */
function expectClose(what: string, estimate: RunEstimate, measured: MeasuredRun): void {
  for (const k of ['get', 'put', 'list', 'delete', 'head'] as const) {
    const tol = Math.max(1, 0.1 * measured.requests[k]);
    expect(
      Math.abs(estimate.requests[k] - measured.requests[k]),
      `${what} ${k}: ${estimate.requests[k]} estimated, ${measured.requests[k]} measured`,
    ).toBeLessThanOrEqual(tol);
  }
  expect(Math.abs(total(estimate.requests) - total(measured.requests))).toBeLessThanOrEqual(
    0.1 * total(measured.requests),
  );
  for (const b of ['bytesRead', 'bytesWritten'] as const)
    expect(
      Math.abs(estimate[b] - measured[b]),
      `${what} ${b}: ${estimate[b]} estimated, ${measured[b]} measured`,
    ).toBeLessThanOrEqual(0.1 * measured[b]);
}

describe.skipIf(!s3.available)('estimates against the real S3 server (issue 25)', () => {
  let proxy: FaultProxy;
  const saved = { ...process.env };
  let work: string;
  let table: string;
  beforeAll(async () => {
    proxy = await startFaultProxy({ upstream: server.endpoint });
    work = mkdtempSync(path.join(os.tmpdir(), 'floe-cost-s3-'));
    const seeded = await seedDemoTable(work, 30, 300);
    table = `s3://${server.bucket}/cost-${randomBytes(4).toString('hex')}/events`;
    const direct = new FileIO({
      s3: {
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      },
    });
    try {
      await uploadImage(direct, await readImage(seeded.location), table);
    } finally {
      direct.destroy();
    }
    Object.assign(process.env, {
      FLOE_S3_ENDPOINT: proxy.endpoint,
      FLOE_S3_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: server.accessKeyId,
      AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
      AWS_REGION: server.region,
      FLOE_COST_CALIBRATION: 'off', // CPU is the bench's business
    });
  }, 300_000);
  afterAll(async () => {
    process.env = saved;
    await proxy?.close();
    rmSync(work, { recursive: true, force: true });
    await s3.release();
  });

  /** Runs `real` and returns what the proxy saw of it. */
  async function seen<T>(real: () => Promise<T>): Promise<{ value: T; counts: RequestFigures }> {
    const from = proxy.events.length;
    const value = await real();
    return { value, counts: proxyCounts(proxy.events.slice(from)) };
  }

  it('compaction: the dry run predicts the real run, and the counter agrees with the wire', async () => {
    const dry = await compactTable(table, { dryRun: true, parallelism: 1 });
    expect(dry.measured).toBeUndefined();
    const { value: real, counts } = await seen(() => compactTable(table, { parallelism: 1 }));
    expect(real.report.bytesWritten).toBeGreaterThan(0);
    expect(real.measured!.requests).toEqual(counts);
    expectClose('compact', dry.estimate!, real.measured!);
    expect(dry.estimate!.benefit.scanFileOpensSaved).toBeGreaterThan(100); // 150 small files and deletes → a few
  });

  it('expire: the dry run predicts the real run (lease, commit, re-read, batch delete)', async () => {
    const opts = { olderThan: '0s', retainLast: 1 };
    const dry = await expireTable(table, { ...opts, dryRun: true });
    expect(dry.candidates.length).toBeGreaterThan(50);
    const { value: real, counts } = await seen(() => expireTable(table, opts));
    expect(real.deleted.length).toBe(dry.candidates.length);
    expect(real.measured!.requests).toEqual(counts);
    expectClose('expire', dry.estimate!, real.measured!);
  });

  it('remove-orphans: the dry run predicts the real run', async () => {
    const io = new FileIO({
      s3: {
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      },
    });
    try {
      for (let i = 0; i < 30; i++) await io.overwrite(`${table}/data/junk/orphan-${i}.parquet`, new Uint8Array(100));
    } finally {
      io.destroy();
    }
    const opts = { olderThan: '0s', force: true };
    const dry = await removeTableOrphans(table, { ...opts, dryRun: true });
    expect(dry.candidates.length).toBeGreaterThanOrEqual(30);
    const { value: real, counts } = await seen(() => removeTableOrphans(table, opts));
    expect(real.deleted.length).toBe(dry.candidates.length);
    expect(real.measured!.requests).toEqual(counts);
    expectClose('remove-orphans', dry.estimate!, real.measured!);
  });
});
