/**
 * issue 9.5: a killed job leaves the local store's hidden `.<name>.floe-tmp-*` files behind (the body of a
 * write that never published). Listings hide them from readers; orphan removal must see them and remove
 * them once they are older than the safety window — never a young one (a write may still be running).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, rmSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';
import { removePaimonOrphanFiles } from '../../connectors/paimon/orphans.js';
import { FileIO } from '../../connectors/storage/index.js';
import { craftIceberg, craftPaimon, plant, tempRoot } from './crafted.js';

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const DAY = 86_400_000;
function aged(file: string, days: number): string {
  const t = new Date(Date.now() - days * DAY);
  utimesSync(file, t, t);
  return file;
}

describe('remove-orphans removes leftover floe temp files (9.5)', () => {
  it('Iceberg: old .<name>.floe-tmp-* files are deleted, young ones and other hidden files kept', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none');
    for (const f of [...c.live, c.expiredData, ...c.expiredInside]) aged(f, 10);
    const oldData = aged(plant(path.join(c.table, 'data', '.d9.parquet.floe-tmp-0a1b2c3d4e5f')), 5);
    const oldMeta = aged(plant(path.join(c.table, 'metadata', '.v2.metadata.json.floe-tmp-112233445566')), 5);
    const young = aged(plant(path.join(c.table, 'data', '.d10.parquet.floe-tmp-aabbccddeeff')), 0.1);
    const hidden = aged(plant(path.join(c.table, 'data', '.not-ours.crc')), 5); // Java's hidden-file rule still applies
    const dry = await removeOrphanFiles(await openForMaintenance(c.table), { dryRun: true });
    const report = await removeOrphanFiles(await openForMaintenance(c.table), {});
    const expected = [`file://${oldData}`, `file://${oldMeta}`].sort();
    expect([...report.deleted].sort()).toEqual(expected);
    expect(dry.candidates.map((x) => x.location).sort()).toEqual(expected);
    expect(report.candidates.every((x) => x.kind === 'temporary' && /never completed/.test(x.reason))).toBe(true);
    expect(existsSync(oldData)).toBe(false);
    expect(existsSync(oldMeta)).toBe(false);
    expect(existsSync(young)).toBe(true);
    expect(existsSync(hidden)).toBe(true);
    expect(report.details.tooYoung).toBeGreaterThanOrEqual(1);
  });

  it('Paimon: old temp files in bucket, snapshot and manifest directories are deleted, young ones kept', async () => {
    const p = await craftPaimon(tempRoot(temps), 'none');
    const inBucket = aged(plant(path.join(p.table, 'f1=10', 'bucket-0', '.data-x.parquet.floe-tmp-010203040506')), 5);
    const inSnapshot = aged(plant(path.join(p.table, 'snapshot', '.snapshot-9.floe-tmp-0708090a0b0c')), 5);
    const young = aged(plant(path.join(p.table, 'manifest', '.manifest-y.floe-tmp-0d0e0f101112')), 0.1);
    const report = await removePaimonOrphanFiles(new FileIO(), p.table, {});
    expect([...report.deleted].sort()).toEqual([`file://${inBucket}`, `file://${inSnapshot}`].sort());
    expect(report.candidates.every((x) => x.kind === 'temporary')).toBe(true);
    expect(existsSync(inBucket)).toBe(false);
    expect(existsSync(inSnapshot)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });
});
