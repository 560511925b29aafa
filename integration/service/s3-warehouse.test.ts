/**
 * Discovery of a warehouse prefix on S3 (the integration tier's S3 test server): a floe-written Iceberg
 * table and a copy of a Java-Paimon table uploaded under `s3://<bucket>/<run>/`, found by a `catalogs:`
 * warehouse entry, compacted by the service's real job runner (`--once`), with history in the database and
 * every row still there afterwards.
 */
import { readdirSync, readFileSync, statSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Field } from '../../model/index.js';
import { FileIO } from '../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable } from '../../connectors/iceberg/write-table.js';
import { storageConfigFromEnv } from '../../connectors/storage/env.js';
import { parseServiceConfig } from '../../src/shells/service/config.js';
import { MaintenanceService } from '../../src/shells/service/service.js';
import { Discovery } from '../../src/shells/service/discovery.js';
import { acquireS3 } from '../support/s3-server.js';
import { FIXTURES, icebergRows, paimonRows } from './support.js';

const s3 = await acquireS3();
const FIELDS: Field[] = [
  { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'qty', required: false, type: { kind: 'primitive', name: 'int' } },
];
let work: string;
let prefix: string;
let files: FileIO;
const expectedOrders: string[] = [];
let paimonBefore: string[] = [];

function* walk(dir: string): Generator<string> {
  for (const e of readdirSync(dir)) {
    const p = path.join(dir, e);
    if (statSync(p).isDirectory()) yield* walk(p);
    else yield p;
  }
}

beforeAll(async () => {
  if (!s3.available) return;
  work = mkdtempSync(path.join(tmpdir(), 'floe-s3-wh-'));
  prefix = `s3://${s3.server.bucket}/service-${process.pid}-${Date.now()}`;
  files = new FileIO(storageConfigFromEnv([]));
  const io = files;
  const orders = `${prefix}/db/orders`;
  await createIcebergTable(io, orders, { formatVersion: 2, fields: FIELDS });
  for (let a = 0; a < 6; a++) {
    const rows = Array.from({ length: 3 }, (_, i) => ({ id: BigInt(a * 10 + i), region: 'eu', qty: i }));
    await appendRows(io, orders, rows);
    expectedOrders.push(...rows.map((r) => `${r.id}|${r.region}|${r.qty}`));
  }
  expectedOrders.sort();
  // a real Java-Paimon table, uploaded file by file (Paimon tables hold no absolute paths)
  const src = path.join(FIXTURES, 'paimon-cpp/pk_table_scan_and_read_mor');
  const { store, key } = files.resolve(`${prefix}/pm/mor`);
  for (const f of walk(src))
    await store.put(
      `${key.replace(/\/+$/, '')}/${path.relative(src, f).split(path.sep).join('/')}`,
      new Uint8Array(readFileSync(f)),
    );
  paimonBefore = await paimonRows(`${prefix}/pm/mor`, files);
});

afterAll(async () => {
  files?.destroy();
  if (work) rmSync(work, { recursive: true, force: true });
  await s3.release();
});

describe.skipIf(!s3.available)('floe serve on an S3 warehouse prefix', () => {
  it('discovers the Iceberg and Paimon tables under the prefix and compacts them; rows unchanged', async () => {
    const config = await parseServiceConfig(
      {
        state: 'floe.db',
        catalogs: [{ name: 's3wh', warehouse: prefix }],
        defaults: { jobs: { compact: 'every 1h' } },
      },
      'floe.yaml',
      work,
    );
    const svc = new MaintenanceService(config, { log: () => {} });
    await svc.init();
    try {
      const found = await new Discovery(svc).refresh();
      expect(found.tables.sort()).toEqual(['s3wh.db.orders', 's3wh.pm.mor']);
      expect(svc.tableConfig('s3wh.db.orders')).toMatchObject({ table: `${prefix}/db/orders`, format: 'iceberg' });
      expect(svc.tableConfig('s3wh.pm.mor')).toMatchObject({ table: `${prefix}/pm/mor`, format: 'paimon' });
      const summary = await svc.runOnce();
      expect(summary.outcomes.map((o) => ('error' in o ? o.error : 'ok'))).toEqual(['ok', 'ok']);
      const orders = await svc.db!.runs('s3wh.db.orders');
      expect(orders.map((r) => [r.outcome, r.filesBefore, r.filesAfter])).toEqual([['ok', 6, 1]]);
      expect((await svc.db!.runs('s3wh.pm.mor'))[0]).toMatchObject({ outcome: 'ok', format: 'paimon' });
      expect(await icebergRows(`${prefix}/db/orders`)).toEqual(expectedOrders);
      const after = await paimonRows(`${prefix}/pm/mor`, files);
      expect(after).toHaveLength(11);
      expect(after).toEqual(paimonBefore);
    } finally {
      await svc.close();
    }
  });
});
