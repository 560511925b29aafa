/**
 * One floe BullMQ worker process for the `bullmq-workers` benchmark (concurrency 1: one rewrite at a time).
 * Env: REDIS_PORT, QUEUE. Prints `ready`, and on SIGTERM one JSON line with its own CPU and peak RSS.
 */
import { createFloeWorkers } from '../src/shells/bindings/bullmq.js';
import { ownPeakRssBytes } from './peak-rss.js';

const workers = createFloeWorkers({
  connection: { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) },
  queueName: process.env.QUEUE ?? 'floe-bench',
  concurrency: 1,
});
let jobs = 0;
workers.worker.on('completed', () => void jobs++);
workers.worker.on('failed', (job, err) => process.stderr.write(`failed ${job?.id}: ${err.message}\n`));
await workers.waitUntilReady();
process.stdout.write('ready\n');
process.on('SIGTERM', () => {
  void workers.close().then(() => {
    const u = process.cpuUsage();
    process.stdout.write(
      `${JSON.stringify({ cpu_s: (u.user + u.system) / 1e6, peak_rss_bytes: ownPeakRssBytes(), jobs })}\n`,
    );
    process.exit(0);
  });
});
