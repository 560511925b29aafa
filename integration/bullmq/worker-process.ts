/**
 * One floe BullMQ worker in its own process, for the crash tests. Env: REDIS_PORT, QUEUE, and FLOE_TEST_DIE:
 * `mid-group` — SIGKILL itself at a rewrite job's first progress update (rows read, nothing returned);
 * `after-commit` — SIGKILL itself after the commit, before the commit job is acknowledged.
 */
import { createFloeWorkers } from '../../src/shells/bindings/bullmq.js';

const die = process.env.FLOE_TEST_DIE ?? '';
const workers = createFloeWorkers({
  connection: { host: '127.0.0.1', port: Number(process.env.REDIS_PORT) },
  queueName: process.env.QUEUE ?? 'floe',
  concurrency: 2,
  lockDurationMs: 2000,
  stalledIntervalMs: 1000,
  onCommitted: (runId, outcome) => {
    process.stdout.write(`committed ${runId} ${outcome.snapshotId ?? '-'} again=${outcome.alreadyCommitted}\n`);
    if (die === 'after-commit') process.kill(process.pid, 'SIGKILL');
  },
});
workers.worker.on('progress', (job) => {
  if (die === 'mid-group' && job.name === 'floe:rewrite') {
    process.stdout.write(`dying in ${job.id}\n`);
    process.kill(process.pid, 'SIGKILL');
  }
});
workers.worker.on('completed', (job) => process.stdout.write(`completed ${job.id}\n`));
workers.worker.on('failed', (job, err) => process.stdout.write(`failed ${job?.id}: ${err.message}\n`));
await workers.waitUntilReady();
process.stdout.write('ready\n');
const stop = () => void workers.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
