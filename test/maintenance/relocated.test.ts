/**
 * issues 9.6 / 13.9: on a relocated table (metadata written at s3://old-bucket/…, files now on local disk;
 * opened by path or with --location-map) messages and listings name the file floe really reads or
 * deletes, with the metadata's spelling beside it; the dry-run list is exactly what the real run deletes.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openForMaintenance } from '../../connectors/iceberg/expire-table.js';
import { expireSnapshots } from '../../connectors/iceberg/expire.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';
import { FloeError } from '../../util/errors.js';
import { readManifestList } from '../../connectors/iceberg/manifests.js';
import { fileIOWithMappings } from '../../connectors/storage/file-io.js';
import { parseMetadataBytes } from '../../connectors/iceberg/metadata.js';
import { reportToJson, reportToText } from '../../src/app/maintenance-report.js';
import { expireAction } from '../../src/shells/cli/commands/expire.js';
import { removeOrphansAction } from '../../src/shells/cli/commands/remove-orphans.js';
import { T0, craftIceberg, craftPaimon, plant, tempRoot, walk } from './crafted.js';

const temps: string[] = [];
afterEach(() => {
  for (const t of temps.splice(0)) rmSync(t, { recursive: true, force: true });
});
const OLD = 's3://old-bucket/wh/t';
const expireOpts = { retainLast: 1, olderThanMs: T0 + 500, nowMs: T0 + 10_000 };

describe('relocated Iceberg tables: real locations in listings (9.6, 13.9)', () => {
  it('opened by path: expire lists the local files it deletes, with the metadata path beside them', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none', { location: OLD });
    const dry = await expireSnapshots(await openForMaintenance(c.table), { ...expireOpts, dryRun: true });
    const expected = [c.expiredData, ...c.expiredInside].map((f) => `file://${f}`).sort();
    expect(dry.candidates.map((x) => x.location).sort()).toEqual(expected);
    for (const x of dry.candidates) expect(x.metadataLocation).toBe(x.location.replace(`file://${c.table}`, OLD));
    const text = reportToText(dry);
    expect(text).toContain(
      `would delete\tdata\t12 B\tfile://${c.expiredData}\t(live only in manifests of expired snapshots; metadata names ${OLD}/data/d1.parquet)`,
    );
    expect(text).not.toMatch(/^would delete\t[^\t]+\t[^\t]+\ts3:/m);

    const real = await expireSnapshots(await openForMaintenance(c.table), expireOpts);
    expect([...real.deleted].sort()).toEqual(expected); // exactly the dry-run list
    expect(real.candidates).toEqual(dry.candidates);
    for (const f of expected) expect(existsSync(f.slice('file://'.length))).toBe(false);
    for (const f of c.live) expect(existsSync(f)).toBe(true);
    const json = JSON.parse(reportToJson(real)) as {
      deleted: string[];
      candidates: { location: string; metadataLocation: string }[];
    };
    expect(json.deleted.sort()).toEqual(expected);
    expect(json.candidates.every((x) => x.location.startsWith('file://') && x.metadataLocation.startsWith(OLD))).toBe(
      true,
    );
  });

  it('--location-map: the CLI dry run and real run of expire list the same mapped files', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none', { location: OLD });
    const cli = { olderThan: String(T0 + 500), retainLast: '1', locationMap: [`${OLD}=${c.table}`] };
    const dry = await expireAction(c.table, { ...cli, dryRun: true });
    const real = await expireAction(c.table, cli);
    expect(dry.candidates.every((x) => x.location.startsWith(`file://${c.table}/`))).toBe(true);
    expect([...real.deleted].sort()).toEqual(dry.candidates.map((x) => x.location).sort());
    expect(real.deleted.length).toBe(3);
  });

  it('an unreadable or missing manifest is named by the local path floe read, the metadata path beside it', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none', { location: OLD });
    const m2 = path.join(c.table, 'metadata', 'm2.avro'); // manifest of the retained snapshot
    writeFileSync(m2, 'not an avro file');
    const report = await expireSnapshots(await openForMaintenance(c.table), expireOpts);
    const w = report.warnings.find((x) => x.includes('m2.avro'));
    expect(w).toBeDefined();
    expect(
      w!.startsWith(`cannot read manifest file://${c.table}/metadata/m2.avro (metadata names ${OLD}/metadata/m2.avro)`),
    ).toBe(true);
    expect(existsSync(c.expiredData)).toBe(true); // a retained manifest is unreadable: no data file deleted

    const err = await removeOrphanFiles(await openForMaintenance(c.table), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FloeError);
    expect(
      (err as FloeError).message.startsWith(
        `cannot read manifest file://${c.table}/metadata/m2.avro (metadata names ${OLD}/metadata/m2.avro)`,
      ),
    ).toBe(true);
    expect((err as FloeError).context.file).toBe(`file://${c.table}/metadata/m2.avro`);

    // missing: expire refuses before committing, naming the local file
    const d = await craftIceberg(tempRoot(temps), 'none', { location: OLD });
    unlinkSync(path.join(d.table, 'metadata', 'm2.avro'));
    const refused = await expireSnapshots(await openForMaintenance(d.table), expireOpts).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(FloeError);
    expect((refused as FloeError).message).toContain(`file://${d.table}/metadata/m2.avro`);
  });

  it('readers (scan, compact) name the mapped manifest list too', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none', { location: OLD });
    unlinkSync(path.join(c.table, 'metadata', 'snap-2.avro'));
    const mdFile = path.join(c.table, 'metadata', 'v1.metadata.json');
    const md = parseMetadataBytes(readFileSync(mdFile), mdFile);
    const io = fileIOWithMappings([{ from: OLD, to: c.table }]);
    const err = await readManifestList(io, md, md.snapshots[1]!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FloeError);
    expect((err as FloeError).message).toMatch(
      new RegExp(
        `^cannot read manifest list file://${c.table}/metadata/snap-2\\.avro \\(metadata names ${OLD}/metadata/snap-2\\.avro\\) of snapshot 2`,
      ),
    );
    expect((err as FloeError).context.file).toBe(`file://${c.table}/metadata/snap-2.avro`);
  });

  it('remove-orphans lists and deletes the local files (dry run = real run), mapped or followed', async () => {
    const c = await craftIceberg(tempRoot(temps), 'none', { location: OLD });
    const orphan = plant(path.join(c.table, 'data', 'orphan.parquet'));
    const old = new Date(Date.now() - 10 * 86_400_000);
    for (const f of walk(c.root)) utimesSync(f, old, old);
    const dry = await removeOrphansAction(c.table, { dryRun: true, locationMap: [`${OLD}=${c.table}`] });
    expect(dry.candidates.map((x) => x.location)).toEqual([`file://${orphan}`]);
    const real = await removeOrphansAction(c.table, {});
    expect(real.deleted).toEqual([`file://${orphan}`]);
    expect(existsSync(orphan)).toBe(false);
  });
});

describe('relocated Paimon external paths (9.6)', () => {
  it('--location-map: expire lists and deletes the mapped external file, the metadata path beside it', async () => {
    const root = tempRoot(temps);
    const OLD_EXT = 's3://old-bucket/ext';
    const p = await craftPaimon(root, 'none', { externalPath: `${OLD_EXT}/x.parquet` });
    const local = plant(path.join(root, 'ext', 'x.parquet'));
    // declare the external data path (as written, on the old bucket) in the latest schema
    const schemaDir = path.join(p.table, 'schema');
    const latest = readdirSync(schemaDir).sort().pop()!;
    const schema = JSON.parse(readFileSync(path.join(schemaDir, latest), 'utf8')) as {
      options: Record<string, string>;
    };
    schema.options['data-file.external-paths'] = OLD_EXT;
    writeFileSync(path.join(schemaDir, latest), JSON.stringify(schema, null, 2));
    const cli = { retainLast: '2', olderThan: '1s', locationMap: [`${OLD_EXT}=${path.join(root, 'ext')}`] };
    const dry = await expireAction(p.table, { ...cli, dryRun: true });
    const ext = dry.candidates.find((c) => c.metadataLocation !== undefined);
    expect(ext).toEqual(
      expect.objectContaining({ location: `file://${local}`, metadataLocation: `${OLD_EXT}/x.parquet` }),
    );
    expect(dry.skipped).toEqual([]);
    const real = await expireAction(p.table, cli);
    expect([...real.deleted].sort()).toEqual(dry.candidates.map((c) => c.location).sort());
    expect(existsSync(local)).toBe(false);
  });
});
