/**
 * `--catalog` on the maintenance commands (expire, remove-orphans, rewrite-manifests): the table is named
 * `ns.table`, read through the catalog row and committed by compare-and-swap of that row.
 * Synthetic tables (test/iceberg-write) in a SQLite catalog; no reference engines needed.
 */
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { expireAction, register as registerExpire } from '../../../src/shells/cli/commands/expire.js';
import {
  removeOrphansAction,
  register as registerRemoveOrphans,
} from '../../../src/shells/cli/commands/remove-orphans.js';
import {
  register as registerRewriteManifests,
  rewriteManifestsAction,
} from '../../../src/shells/cli/commands/rewrite-manifests.js';
import { parseMetadataBytes } from '../../../connectors/iceberg/metadata.js';
import { isFloeError } from '../../../util/errors.js';
import { buildTable } from '../iceberg-write/synthetic-table.js';
import { createCatalogDb, data, insertRow, rowsOf, tmp } from './support.js';

const S1 = 9_007_199_254_740_993n;
const S2 = 9_007_199_254_740_995n;

/** Two snapshots (data, then a position delete) published as `00003-….metadata.json` in a SQLite catalog. */
async function setup() {
  const root = tmp('floe-maint-catalog-');
  const loc0 = path.join(root, 'db', 't');
  const files = data(loc0, 2, 'eu');
  const loc = await buildTable(root, {
    partitioned: true,
    data: files,
    deletes: [
      {
        path: `${loc0}/data/pos-0.parquet`,
        region: 'eu',
        rows: 1,
        size: 100,
        content: 1,
        referencedDataFile: files[0]!.path,
      },
    ],
  });
  const current = path.join(loc, 'metadata', '00003-5c6d7e8f-0000-4000-8000-000000000003.metadata.json');
  copyFileSync(path.join(loc, 'metadata', 'v1.metadata.json'), current);
  const db = path.join(root, 'catalog.db');
  createCatalogDb(db);
  insertRow(db, {
    catalog_name: 'prod',
    table_namespace: 'db',
    table_name: 't',
    metadata_location: current,
    previous_metadata_location: null,
  });
  return { loc, db, current };
}

describe('maintenance commands with --catalog sql:', () => {
  it('register --catalog and --catalog-name', () => {
    const program = new Command();
    for (const r of [registerExpire, registerRemoveOrphans, registerRewriteManifests]) r(program);
    for (const c of program.commands) {
      const flags = c.options.map((o) => o.long);
      expect(flags, c.name()).toContain('--catalog');
      expect(flags, c.name()).toContain('--catalog-name');
    }
  });

  it('expire commits through the catalog row and deletes only what the expired snapshot alone reached', async () => {
    const s = await setup();
    const r = await expireAction('db.t', { catalog: `sql:${s.db}`, retainLast: '1', olderThan: '0s' });
    expect(r.details.expiredSnapshots).toEqual([String(S1)]);
    const [row] = rowsOf(s.db);
    expect(row!.previous_metadata_location).toBe(s.current);
    expect(row!.metadata_location).toMatch(/\/metadata\/00004-[0-9a-f-]{36}\.metadata\.json$/);
    const md = parseMetadataBytes(readFileSync(row!.metadata_location!), row!.metadata_location!);
    expect(md.snapshots.map((x) => x.snapshotId)).toEqual([S2]);
    // snapshot 1's manifest list is referenced by nothing else; its manifest is carried into snapshot 2's list
    const list1 = path.join(s.loc, 'metadata', `snap-${S1}.avro`);
    expect(r.deleted.map((l) => l.replace(/^file:\/\//, ''))).toEqual([list1]);
    expect(existsSync(list1)).toBe(false);
    expect(existsSync(path.join(s.loc, 'metadata', `m-${S1}.avro`))).toBe(true);
  });

  it("remove-orphans --dry-run reads the valid set from the catalog's metadata: the unreferenced v1 copy is the orphan", async () => {
    const s = await setup();
    const r = await removeOrphansAction('db.t', { catalog: `sql:${s.db}`, dryRun: true, olderThan: '0s', force: true });
    // buildTable's own v1.metadata.json is not in the catalog's chain (the row names the 00003 copy)
    expect(r.candidates.map((c) => c.location.replace(/^file:\/\//, ''))).toEqual([
      path.join(s.loc, 'metadata', 'v1.metadata.json'),
    ]);
    expect(r.deleted).toEqual([]);
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(s.current);
  });

  it('rewrite-manifests --dry-run opens through the catalog and changes nothing', async () => {
    const s = await setup();
    const r = await rewriteManifestsAction('db.t', { catalog: `sql:${s.db}`, dryRun: true });
    expect(r.dryRun).toBe(true);
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(s.current);
  });

  it('a catalog-name that holds no such table is NotFound', async () => {
    const s = await setup();
    const e = await expireAction('db.t', {
      catalog: `sql:${s.db}`,
      catalogName: 'staging',
      retainLast: '1',
      olderThan: '0s',
    }).catch((x: unknown) => x);
    expect(isFloeError(e, 'NotFound')).toBe(true);
    expect((e as Error).message).toContain('db.t');
    expect(rowsOf(s.db)[0]!.metadata_location).toBe(s.current);
  });
});
