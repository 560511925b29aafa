/**
 * `npm run bench -- estimate` (issue 25): a dry run's estimate against the real run's measured figures for a
 * compaction, an expire and an orphan cleanup of the demo table (30 small commits with equality deletes) on
 * the real S3 test server (MinIO or the project's second implementation, integration/support/s3-server.ts),
 * with requests counted by floe's counter and, independently, by a counting proxy on the wire. Must show:
 * requests and bytes within ±10 %, CPU within ±30 % (a quiet machine: CPU is process time, shared cores
 * inflate it). `--tables N` repeats on N fresh copies and reports each.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FileIO } from '../connectors/storage/file-io.js';
import { compactTable } from '../src/app/compact.js';
import { expireTable } from '../src/app/expire.js';
import { removeTableOrphans } from '../src/app/remove-orphans.js';
import { seedDemoTable } from '../src/demo/seed.js';
import type { MeasuredRun, RunEstimate } from '../model/index.js';
import { startS3Server } from '../integration/support/s3-server.js';
import { startFaultProxy } from '../integration/support/s3-fault-proxy.js';
import { numberFlag, type Benchmark } from './types.js';

const KINDS = ['get', 'put', 'list', 'delete', 'head'] as const;

function files(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = path.join(dir, n);
    return statSync(p).isDirectory() ? files(p, base) : [path.relative(base, p)];
  });
}

const pct = (est: number, meas: number) => (meas === 0 ? (est === 0 ? 0 : Infinity) : ((est - meas) / meas) * 100);
const total = (r: Record<(typeof KINDS)[number], number>) => KINDS.reduce((n, k) => n + r[k], 0);

function row(job: string, e: RunEstimate, m: MeasuredRun, wire: number): Record<string, string | number> {
  return {
    job,
    'requests est/meas': `${total(e.requests)}/${total(m.requests)}`,
    'requests Δ%': pct(total(e.requests), total(m.requests)).toFixed(1),
    'worst kind Δ':
      KINDS.map((k) => `${k} ${e.requests[k] - m.requests[k]}`)
        .filter((t) => !t.endsWith(' 0'))
        .join(' ') || 'none',
    'wire requests': wire,
    'bytesRead Δ%': pct(e.bytesRead, m.bytesRead).toFixed(1),
    'bytesWritten Δ%': pct(e.bytesWritten, m.bytesWritten).toFixed(1),
    'cpu est/meas s': `${e.cpuSeconds.toFixed(2)}/${m.cpuSeconds.toFixed(2)}`,
    'cpu Δ%': pct(e.cpuSeconds, m.cpuSeconds).toFixed(1),
    'cost est/meas USD': `${e.cost.total.toPrecision(3)}/${m.cost.total.toPrecision(3)}`,
  };
}

const bench: Benchmark = {
  name: 'estimate',
  description: 'estimated vs measured requests, bytes and CPU of compact, expire, remove-orphans on the S3 test server',
  async run(ctx) {
    const tables = numberFlag(ctx.flags, 'tables', 1);
    const server = await startS3Server({ bucket: 'floe-bench-estimate' });
    const proxy = await startFaultProxy({ upstream: server.endpoint });
    const work = mkdtempSync(path.join(os.tmpdir(), 'floe-bench-estimate-'));
    const saved = { ...process.env };
    const rows: Record<string, string | number>[] = [];
    const data: unknown[] = [];
    const direct = new FileIO({
      s3: {
        endpoint: server.endpoint,
        region: server.region,
        forcePathStyle: true,
        credentials: { accessKeyId: server.accessKeyId, secretAccessKey: server.secretAccessKey },
      },
    });
    try {
      Object.assign(process.env, {
        FLOE_S3_ENDPOINT: proxy.endpoint,
        FLOE_S3_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: server.accessKeyId,
        AWS_SECRET_ACCESS_KEY: server.secretAccessKey,
        AWS_REGION: server.region,
      });
      for (let i = 0; i < tables; i++) {
        const seeded = await seedDemoTable(path.join(work, `t${i}`), 30, 300);
        const table = `s3://${server.bucket}/estimate-${randomBytes(4).toString('hex')}/events`;
        for (const rel of files(seeded.location))
          await direct.overwrite(`${table}/${rel}`, readFileSync(path.join(seeded.location, rel)));
        const wire = async <T>(fn: () => Promise<T>) => {
          const from = proxy.events.length;
          const value = await fn();
          return { value, wire: proxy.events.length - from };
        };
        ctx.log(`estimate: table ${i + 1}/${tables} at ${table}`);
        const cd = await compactTable(table, { dryRun: true, parallelism: 1 });
        const cr = await wire(() => compactTable(table, { parallelism: 1 }));
        rows.push(row('compact', cd.estimate!, cr.value.measured!, cr.wire));
        const eo = { olderThan: '0s', retainLast: 1 };
        const ed = await expireTable(table, { ...eo, dryRun: true });
        const er = await wire(() => expireTable(table, eo));
        rows.push(row('expire', ed.estimate!, er.value.measured!, er.wire));
        for (let k = 0; k < 30; k++)
          await direct.overwrite(`${table}/data/junk/orphan-${k}.parquet`, new Uint8Array(100));
        const oo = { olderThan: '0s', force: true };
        const od = await removeTableOrphans(table, { ...oo, dryRun: true });
        const or = await wire(() => removeTableOrphans(table, oo));
        rows.push(row('remove-orphans', od.estimate!, or.value.measured!, or.wire));
        data.push({
          table,
          compact: { estimate: cd.estimate, measured: cr.value.measured },
          expire: { estimate: ed.estimate, measured: er.value.measured },
          removeOrphans: { estimate: od.estimate, measured: or.value.measured },
        });
      }
    } finally {
      process.env = saved;
      direct.destroy();
      await proxy.close();
      await server.stop();
      rmSync(work, { recursive: true, force: true });
    }
    return {
      rows,
      notes: [
        `S3 server: ${server.kind}; each job's estimate is its dry run's, measured is the real run's (floe's counter; "wire requests" is what the counting proxy saw).`,
        'Must show: requests and bytes within ±10 %, CPU within ±30 %.',
      ],
      data,
    };
  },
};

export default bench;
