/**
 * issue 9.3: expire and remove-orphans delete only inside the table's locations. Each crafted case names
 * a file outside the table in snapshot metadata that expires; floe must skip it and say so (dry run and
 * real run alike), keep cleaning the table's own files, and delete it only with the explicit opt-in.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { expireSnapshots } from '../../connectors/iceberg/expire.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';
import { expirePaimonSnapshots } from '../../connectors/paimon/expire.js';
import { removePaimonOrphanFiles } from '../../connectors/paimon/orphans.js';
import { FileIO } from '../../connectors/storage/index.js';
import { reportToJson, reportToText } from '../../src/app/maintenance-report.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { FloeError } from '../../util/errors.js';
import { ICEBERG_CRAFTS, PAIMON_CRAFTS, T0, craftIceberg, craftPaimon, plant, tempRoot, walk } from './crafted.js';

const temps: string[] = [];
const startCwd = process.cwd();
afterEach(() => {
  process.chdir(startCwd);
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});

const expireOpts = { retainLast: 1, olderThanMs: T0 + 500, nowMs: T0 + 10_000 };

describe('Iceberg expire never deletes outside the table (9.3)', () => {
  for (const craft of ICEBERG_CRAFTS) {
    it(`${craft}: skipped and reported, the table's own expired files deleted`, async () => {
      const c = await craftIceberg(tempRoot(temps), craft);
      process.chdir(c.cwd); // relative paths resolve here, outside the table

      const dry = await expireSnapshots(await openForMaintenance(c.table), { ...expireOpts, dryRun: true });
      const report = await expireSnapshots(await openForMaintenance(c.table), expireOpts);

      expect(existsSync(c.victim), `${c.victim} must survive`).toBe(true);
      expect(report.details.expiredSnapshots).toEqual(['1']);
      // the table's own files of the expired snapshot are still cleaned
      expect(existsSync(c.expiredData)).toBe(false);
      for (const f of c.expiredInside) expect(existsSync(f)).toBe(false);
      for (const f of c.live) expect(existsSync(f)).toBe(true);
      // reported: skipped (with the reason), never a candidate, never deleted — in the dry run too
      for (const r of [dry, report]) {
        expect(r.skipped).toHaveLength(1);
        // the real location floe would have deleted, the metadata's spelling beside it when it differs
        expect(r.skipped[0]!.location).toBe(`file://${c.victim}`);
        if (craft === 'relative path') expect(r.skipped[0]!.metadataLocation).toBe('rel.parquet');
        expect(r.skipped[0]!.refused).toMatch(
          craft === 'relative path' ? /relative path .*outside the table's locations/ : /outside the table's locations/,
        );
        expect(r.candidates.map((x) => x.location)).not.toContain(`file://${c.victim}`);
        expect(r.warnings.some((w) => w.includes('--allow-outside-table-location'))).toBe(true);
      }
      expect(report.deleted).not.toContain(`file://${c.victim}`);
      expect(new Set(report.deleted)).toEqual(new Set(dry.candidates.map((x) => x.location)));
      const json = JSON.parse(reportToJson(report)) as {
        skipped: { location: string; refused: string }[];
        summary: { skipped: number };
      };
      expect(json.summary.skipped).toBe(1);
      expect(json.skipped[0]!.refused).toContain('outside');
      expect(reportToText(dry)).toMatch(/^skip\t.*\(not deleted: .*outside the table's locations/m);
    });
  }

  it('deletes outside the table only with allowOutsideTableLocation (absolute locations; never a relative one)', async () => {
    const c = await craftIceberg(tempRoot(temps), 'absolute path');
    const report = await expireSnapshots(await openForMaintenance(c.table), {
      ...expireOpts,
      allowOutsideTableLocation: true,
    });
    expect(existsSync(c.victim)).toBe(false);
    expect(report.skipped).toEqual([]);
    expect(report.deleted).toContain(`file://${c.victim}`);

    const r = await craftIceberg(tempRoot(temps), 'relative path');
    process.chdir(r.cwd);
    const rel = await expireSnapshots(await openForMaintenance(r.table), {
      ...expireOpts,
      allowOutsideTableLocation: true,
    });
    expect(existsSync(r.victim)).toBe(true);
    expect(rel.skipped.map((s) => s.metadataLocation)).toEqual(['rel.parquet']);
  });

  it('the CLI flag --allow-outside-table-location reaches the library; without it the file is skipped', async () => {
    const c = await craftIceberg(tempRoot(temps), 'file:// URI');
    const dry = await expireAction(c.table, { olderThan: String(T0 + 500), retainLast: '1', dryRun: true });
    expect(dry.skipped.map((s) => s.location)).toEqual([`file://${c.victim}`]);
    const real = await expireAction(c.table, {
      olderThan: String(T0 + 500),
      retainLast: '1',
      allowOutsideTableLocation: true,
    });
    expect(real.deleted).toContain(`file://${c.victim}`);
    expect(existsSync(c.victim)).toBe(false);
  });

  it("files under write.data.path (a configured data location elsewhere) are the table's and are deleted", async () => {
    const root = tempRoot(temps);
    const c = await craftIceberg(root, 'absolute path', {
      properties: { 'write.data.path': path.join(root, 'outside') },
    });
    const report = await expireSnapshots(await openForMaintenance(c.table), expireOpts);
    expect(report.skipped).toEqual([]);
    expect(report.deleted).toContain(`file://${c.victim}`);
    expect(existsSync(c.victim)).toBe(false);
  });
});

describe('remove-orphans never deletes outside the table (9.3)', () => {
  it('Iceberg: only files under the table location are candidates, however old the files beside it are', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none');
    const old = new Date(Date.now() - 30 * 86_400_000);
    const beside = plant(path.join(c.root, 'outside', 'old.parquet'));
    const sibling = plant(path.join(c.root, 't-sibling', 'data', 'x.parquet')); // shares the string prefix "t"
    const orphan = plant(path.join(c.table, 'data', 'orphan.parquet'));
    for (const f of [...walk(c.root)]) utimesSync(f, old, old);
    const report = await removeOrphanFiles(await openForMaintenance(c.table), {});
    expect(report.deleted).toEqual([`file://${orphan}`]);
    expect(existsSync(beside)).toBe(true);
    expect(existsSync(sibling)).toBe(true);
    expect(report.skipped).toEqual([]);
  });

  it('Paimon: only files inside the table directory are candidates', async () => {
    const root = tempRoot(temps);
    const p = await craftPaimon(root, 'none');
    const beside = plant(path.join(root, 'pk_09-sibling', 'bucket-0', 'data-x.parquet'));
    const orphan = plant(path.join(p.table, 'bucket-0', 'data-orphan.parquet'));
    const old = new Date(Date.now() - 30 * 86_400_000);
    for (const f of walk(root)) utimesSync(f, old, old);
    const report = await removePaimonOrphanFiles(new FileIO(), p.table, {});
    expect(report.deleted).toEqual([`file://${orphan}`]);
    expect(existsSync(beside)).toBe(true);
  });
});

/** Crafts whose outside path sits in a snapshot field: the snapshot itself is refused (issue 29.4). */
const SNAPSHOT_FIELD_CRAFTS: Partial<Record<(typeof PAIMON_CRAFTS)[number], string>> = {
  'manifest list outside': 'baseManifestList',
  'statistics file outside': 'statistics',
};

describe('Paimon expire never deletes outside the table (9.3)', () => {
  for (const [craft, field] of Object.entries(SNAPSHOT_FIELD_CRAFTS)) {
    it(`${craft}: the snapshot is refused as Corrupt naming ${field}, nothing is deleted`, async () => {
      const p = await craftPaimon(tempRoot(temps), craft as (typeof PAIMON_CRAFTS)[number]);
      process.chdir(p.cwd);
      const before = [...walk(p.table)].sort();
      for (const dryRun of [true, false]) {
        const err = await expirePaimonSnapshots(new FileIO(), p.table, { retainMin: 2, dryRun }).then(
          () => undefined,
          (e: unknown) => e as FloeError,
        );
        expect(err, 'expire must refuse the snapshot').toBeInstanceOf(FloeError);
        expect(err!.kind).toBe('Corrupt');
        expect(err!.message).toContain(`"${field}"`);
      }
      expect(existsSync(p.victim), `${p.victim} must survive`).toBe(true);
      expect([...walk(p.table)].sort()).toEqual(before);
    });
  }
  for (const craft of PAIMON_CRAFTS.filter((c) => !(c in SNAPSHOT_FIELD_CRAFTS))) {
    it(`${craft}: skipped and reported, the table's own expired files deleted`, async () => {
      const p = await craftPaimon(tempRoot(temps), craft);
      process.chdir(p.cwd);
      const io = new FileIO();
      const dry = await expirePaimonSnapshots(io, p.table, { retainMin: 2, dryRun: true });
      const report = await expirePaimonSnapshots(io, p.table, { retainMin: 2 });
      expect(existsSync(p.victim), `${p.victim} must survive`).toBe(true);
      expect(report.details.expiredSnapshots).toEqual(['1', '2', '3', '4', '5', '6']);
      expect(report.deleted.length).toBeGreaterThan(6); // snapshot files and the table's own files
      for (const r of [dry, report]) {
        expect(r.candidates.map((x) => x.location)).not.toContain(`file://${p.victim}`);
        // skipped by the delete scope — or refused earlier by the reader's own name validation; either way said
        if (r.skipped.length > 0) expect(r.skipped.map((s) => s.location)).toEqual([`file://${p.victim}`]);
        else expect(r.warnings.some((w) => w.includes(path.basename(p.victim)))).toBe(true);
      }
      expect(report.deleted).not.toContain(`file://${p.victim}`);
      expect(new Set(report.deleted)).toEqual(new Set(dry.candidates.map((x) => x.location)));
    });
  }

  it("an external path under data-file.external-paths is the table's and is deleted", async () => {
    const root = tempRoot(temps);
    const p = await craftPaimon(root, 'absolute path');
    // declare the victim's directory as the table's external data path in the latest schema
    const { readFileSync, writeFileSync, readdirSync } = await import('node:fs');
    const schemaDir = path.join(p.table, 'schema');
    const latest = readdirSync(schemaDir).sort().pop()!;
    const schema = JSON.parse(readFileSync(path.join(schemaDir, latest), 'utf8')) as {
      options: Record<string, string>;
    };
    schema.options['data-file.external-paths'] = `file://${path.dirname(p.victim)}`;
    writeFileSync(path.join(schemaDir, latest), JSON.stringify(schema, null, 2));
    const report = await expirePaimonSnapshots(new FileIO(), p.table, { retainMin: 2 });
    expect(report.skipped).toEqual([]);
    expect(existsSync(p.victim)).toBe(false);
  });
});
