/**
 * Discovery through a real Iceberg REST catalog (the reference server the catalog tier starts: iceberg-core's
 * RESTCatalogAdapter over a JdbcCatalog): PyIceberg creates tables in two namespaces with many small
 * appends; a `catalogs:` REST entry with include/exclude finds them, the service compacts the included one
 * through the REST catalog (`--once`), PyIceberg reads back exactly the rows it wrote, and the excluded
 * table is left untouched. Engines or server unavailable: the test fails and says why.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalRows, type InputRow } from '../oracles/index.js';
import { RowModel } from '../iceberg-compaction/helpers.js';
import {
  PyCatalog,
  javaCatalogAvailable,
  pythonCatalogAvailable,
  pythonSession,
  startRestServer,
  type RestServer,
} from '../catalogs/support.js';
import { parseServiceConfig } from '../../src/shells/service/config.js';
import { MaintenanceService } from '../../src/shells/service/service.js';
import { Discovery } from '../../src/shells/service/discovery.js';

const avail = { python: await pythonCatalogAvailable(), java: await javaCatalogAvailable() };
const work = mkdtempSync(path.join(os.tmpdir(), 'floe-rest-discovery-'));
const python = pythonSession();
let server: RestServer | undefined;
let py: PyCatalog;
const rows = (b: number): InputRow[] =>
  Array.from({ length: 4 }, (_, i) => ({ id: b * 100 + i, region: i % 2 ? 'us' : 'eu', qty: b }));
const SCHEMA = [
  { name: 'id', type: 'long', required: true },
  { name: 'region', type: 'string' },
  { name: 'qty', type: 'int' },
];

beforeAll(async () => {
  for (const [name, a] of Object.entries(avail))
    if (!a.ok) throw new Error(`REST discovery needs the ${name} reference engine: ${a.reason}`);
  server = await startRestServer(path.join(work, 'warehouse'), path.join(work, 'backend.db'));
  py = new PyCatalog(python, `rest:${server.uri}`);
  await py.write('sales.orders', {
    formatVersion: 2,
    schema: SCHEMA,
    ops: [0, 1, 2, 3, 4, 5].map((b) => ({ op: 'append' as const, rows: rows(b) })),
  });
  await py.write('scratch.tmp', {
    formatVersion: 2,
    schema: SCHEMA,
    ops: [0, 1, 2].map((b) => ({ op: 'append' as const, rows: rows(b) })),
  });
});

afterAll(async () => {
  python.close();
  await server?.stop();
  rmSync(work, { recursive: true, force: true });
});

describe('discovery through a REST catalog', () => {
  it('finds the included tables, compacts them through the catalog, rows unchanged', async () => {
    const config = await parseServiceConfig(
      {
        state: 'floe.db',
        catalogs: [{ name: 'rest', catalog: `rest:${server!.uri}`, exclude: ['scratch.*'] }],
        defaults: { jobs: { compact: 'every 1h' } },
      },
      'floe.yaml',
      work,
      {},
    );
    const svc = new MaintenanceService(config, { log: () => {} });
    await svc.init();
    try {
      const found = await new Discovery(svc).refresh();
      expect(found).toEqual({ tables: ['rest.sales.orders'], optedOut: [], errors: [] });
      const before = await py.snapshots('scratch.tmp');
      const summary = await svc.runOnce();
      expect(summary.outcomes.map((o) => ('error' in o ? o.error : o.ok))).toEqual([true]);
      const runs = await svc.db!.runs('rest.sales.orders');
      expect(runs.map((r) => [r.outcome, r.filesBefore, r.filesAfter])).toEqual([['ok', 6, 1]]);
      // the rows written, typed as the table declares them (RowModel), never read back through floe
      const model = new RowModel({ id: 'long', region: 'string', qty: 'int' });
      for (const b of [0, 1, 2, 3, 4, 5]) model.append(rows(b));
      expect(canonicalRows(await py.read('sales.orders'))).toEqual(canonicalRows(model.live()));
      // the excluded table was not touched
      expect(await py.snapshots('scratch.tmp')).toEqual(before);
    } finally {
      await svc.close();
    }
  });
});
