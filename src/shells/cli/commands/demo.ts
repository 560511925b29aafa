/**
 * `floe demo [warehouse]`: floe's main job on a local warehouse, no cloud needed. Seeds a table the way a
 * streaming upsert sink leaves it, inspects it, compacts it, and proves the rows did not change.
 */
import type { Command } from 'commander';
import { FloeError } from '../../../../util/errors.js';
import { seedDemoTable } from '../../../demo/seed.js';
import { openIcebergForWrite } from '../../../app/open-table.js';
import { compactIceberg } from '../../../orchestration/compact-iceberg.js';
import { createHash } from 'node:crypto';
import { scanTable } from '../../../../connectors/iceberg/scan.js';
import type { IcebergTable } from '../../../../connectors/iceberg/table.js';
import { stringifyJsonLossless } from '../../../../util/json.js';
import { buildInspectReport } from './inspect.js';
import { renderPlan, renderReport } from './compact.js';
import { createProgress } from '../progress.js';

/** Row count and an order-independent digest of every live row (the multiset), to prove nothing changed. */
async function fingerprint(table: IcebergTable): Promise<{ rows: number; digest: string }> {
  const lines: string[] = [];
  for await (const b of scanTable(table))
    for (const r of b.rows)
      lines.push(stringifyJsonLossless(r.map((v) => (v instanceof Uint8Array ? Buffer.from(v).toString('hex') : v))));
  lines.sort();
  const h = createHash('sha256');
  for (const l of lines) h.update(l).update('\n');
  return { rows: lines.length, digest: h.digest('hex').slice(0, 16) };
}

export function register(program: Command): void {
  program
    .command('demo [warehouse]')
    .description('Seed a local warehouse with a fragmented Iceberg table, then compact it and verify the rows')
    .option('--strategy <name>', 'tiered or binpack', 'tiered')
    .action(async (warehouse: string | undefined, o: { strategy: string }) => {
      const dir = warehouse ?? './warehouse';
      const seeded = await seedDemoTable(dir);
      process.stdout.write(
        seeded.created
          ? `seeded ${seeded.location} with ${seeded.commits} commits\n`
          : `using existing table ${seeded.location}\n`,
      );
      const opened = await openIcebergForWrite(seeded.location, {});
      try {
        const before = await buildInspectReport(opened.table);
        const rowsBefore = await fingerprint(opened.table);
        process.stdout.write(
          `before: ${before.health.data.fragment.files + before.health.data.undersized.files + before.health.data.target.files} data files, ` +
            `${before.health.deletes.equality.files} equality-delete files, ${rowsBefore.rows} live rows (digest ${rowsBefore.digest}), health ${before.health.score.toFixed(1)}/100\n`,
        );
        const progress = createProgress(process.stderr, { command: 'demo' });
        const report = await compactIceberg(opened.table, opened.io, opened.ops!, {
          strategy: o.strategy === 'binpack' ? 'binpack' : 'tiered',
          // the demo table is tiny: a small target makes the tiers visible
          options: {
            'self-optimizing.target-size': String(4 * 1024 * 1024),
            'target-file-size-bytes': String(4 * 1024 * 1024),
          },
          onProgress: progress.listener,
        });
        progress.finish();
        process.stdout.write(`${renderPlan(report.plan, false)}\n${renderReport(report)}\n`);
        const after = await openIcebergForWrite(seeded.location, {});
        try {
          const rowsAfter = await fingerprint(after.table);
          const health = await buildInspectReport(after.table);
          process.stdout.write(
            `after: ${rowsAfter.rows} live rows (digest ${rowsAfter.digest}), health ${health.health.score.toFixed(1)}/100\n`,
          );
          if (rowsAfter.digest !== rowsBefore.digest)
            throw new FloeError(
              'Internal',
              `live rows changed: ${rowsBefore.rows} (${rowsBefore.digest}) → ${rowsAfter.rows} (${rowsAfter.digest})`,
            );
          process.stdout.write(`rows verified: the same ${rowsAfter.rows} rows before and after\n`);
        } finally {
          after.files.destroy();
        }
      } finally {
        opened.files.destroy();
      }
    });
}
