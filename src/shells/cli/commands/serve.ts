/**
 * `floe serve --config floe.yaml [--once] [--http-port N]`: scheduled maintenance of the configured and
 * discovered tables. Long-running by default (SIGINT/SIGTERM: stop starting jobs, let running ones finish
 * within `shutdownTimeout`, flush state). `--once` runs every due job once and exits — for cron, a
 * Kubernetes CronJob or an Airflow BashOperator — with exit code 3 if any job failed.
 */
import type { Command } from 'commander';
import { FloeError } from '../../../../util/errors.js';
import { loadServiceConfig } from '../../service/config.js';
import { MaintenanceService } from '../../service/service.js';
import { startHttpEndpoint, type HttpEndpoint } from '../../service/http.js';
import { Discovery } from '../../service/discovery.js';

interface ServeCliOptions {
  config: string;
  once?: boolean;
  httpPort?: string;
}

export function register(program: Command): void {
  program
    .command('serve')
    .description('Run scheduled compaction, snapshot expiry and orphan cleanup for the tables in a config file')
    .requiredOption(
      '--config <file>',
      'service config (YAML or JSON): state database, catalogs and tables to maintain, jobs and schedules, http',
    )
    .option('--once', 'run every due job once, then exit (exit code 3 if any failed)')
    .option(
      '--http-port <n>',
      'serve the dashboard and API on <n> (default: http.port in the config; 0 picks a free port); binds http.host, 127.0.0.1 by default',
    )
    .action(async (o: ServeCliOptions) => {
      const config = await loadServiceConfig(o.config);
      const port = o.httpPort === undefined ? config.http.port : parsePort(o.httpPort);
      const service = new MaintenanceService(config);
      await service.init();
      const discovery = new Discovery(service);
      try {
        await discovery.refresh();
        if (o.once) {
          const http = port === undefined ? undefined : await startHttpEndpoint(service, port);
          try {
            const summary = await service.runOnce();
            if (summary.failed > 0) process.exitCode = 3;
          } finally {
            await http?.close();
          }
          return;
        }
        await serveUntilSignalled(service, discovery, port, config.shutdownTimeoutMs);
      } finally {
        await service.close();
      }
    });
}

async function serveUntilSignalled(
  service: MaintenanceService,
  discovery: Discovery,
  port: number | undefined,
  timeoutMs: number,
): Promise<void> {
  let http: HttpEndpoint | undefined;
  if (port !== undefined) {
    http = await startHttpEndpoint(service, port);
    // the port line is what scripts and tests wait for
    process.stderr.write(
      `floe serve: http on ${http.host.includes(':') ? `[${http.host}]` : http.host}:${http.port}\n`,
    );
    if (!service.config.http.token)
      process.stderr.write(
        'floe serve: no API token (FLOE_API_TOKEN or http.token): every API request will be refused with 401\n',
      );
  }
  service.start();
  discovery.start();
  await new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        // a second signal: the operator does not want to wait for running jobs
        process.stderr.write(`floe serve: ${signal} again, exiting without waiting\n`);
        process.exit(130);
      }
      stopping = true;
      void (async () => {
        discovery.stop();
        const { unfinished } = await service.stop(timeoutMs);
        await service.close();
        await http?.close();
        if (unfinished.length) process.exitCode = 1;
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        resolve();
      })();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  // jobs that ignored the stop signal may still hold sockets or timers open
  process.exit(process.exitCode ?? 0);
}

function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n > 65535)
    throw new FloeError('InvalidArgument', `--http-port: "${text}" is not a port number (0-65535)`);
  return n;
}
