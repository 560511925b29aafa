/**
 * Table layout handling and bad input, on temporary copies of a Java-written fixture table.
 */
import path from 'node:path';
import os from 'node:os';
import {
  cpSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { loadPaimonTable, scanPaimon } from '../../../connectors/paimon/index.js';
import {
  latestSnapshotId,
  earliestSnapshotId,
  parseSchema,
  parseSnapshot,
} from '../../../connectors/paimon/metadata.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { partitionPath, escapePathName } from '../../../connectors/paimon/paths.js';
import { parseAtomicType, parsePaimonType, toModelType } from '../../../connectors/paimon/types.js';
import { isFloeError } from '../../../util/errors.js';

const localIO = new FileIO();

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const source = path.resolve(repoRoot, '../shared/fixtures/paimon-cpp/pk_table_scan_and_read_mor');
const temps: string[] = [];

function copyTable(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-'));
  temps.push(dir);
  const t = path.join(dir, 't');
  cpSync(source, t, { recursive: true });
  return t;
}

afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function count(t: string, snapshotId?: number) {
  let n = 0;
  for await (const _ of scanPaimon(t, snapshotId === undefined ? {} : { snapshotId })) n++;
  return n;
}

describe('snapshot hints', () => {
  it('falls back to listing when LATEST is missing or stale', async () => {
    const t = copyTable();
    unlinkSync(path.join(t, 'snapshot/LATEST'));
    expect(await latestSnapshotId(localIO, t)).toBe(5n);
    writeFileSync(path.join(t, 'snapshot/LATEST'), '3'); // stale: snapshot-4 exists
    expect(await latestSnapshotId(localIO, t)).toBe(5n);
    writeFileSync(path.join(t, 'snapshot/LATEST'), 'garbage');
    expect(await latestSnapshotId(localIO, t)).toBe(5n);
    writeFileSync(path.join(t, 'snapshot/EARLIEST'), '9');
    expect(await earliestSnapshotId(localIO, t)).toBe(1n);
    expect(await count(t)).toBe(11);
  });

  it('reads older snapshots', async () => {
    const t = copyTable();
    const m = await loadPaimonTable(t, { snapshotId: 2 });
    expect(m.currentSnapshotId).toBe(2n);
    expect(m.snapshots).toHaveLength(5);
  });
});

describe('bad input is a FloeError naming the file', () => {
  it('corrupt snapshot JSON', async () => {
    const t = copyTable();
    const f = path.join(t, 'snapshot/snapshot-5');
    writeFileSync(f, '{ "version": 3, "id": 5, ');
    const err = await loadPaimonTable(t).catch((e: unknown) => e);
    expect(isFloeError(err, 'Corrupt')).toBe(true);
    expect((err as Error).message).toContain(f);
  });

  it('snapshot missing required keys', () => {
    const err = (() => {
      try {
        parseSnapshot(Buffer.from('{"id": 1}'), 'snap-x');
      } catch (e) {
        return e;
      }
    })();
    expect(isFloeError(err, 'Corrupt')).toBe(true);
    expect((err as Error).message).toMatch(/snap-x.*schemaId/);
  });

  it('missing manifest', async () => {
    const t = copyTable();
    const manifests = readdirSync(path.join(t, 'manifest')).filter((n) => !n.startsWith('manifest-list-'));
    for (const m of manifests) unlinkSync(path.join(t, 'manifest', m));
    const err = await loadPaimonTable(t).catch((e: unknown) => e);
    expect(isFloeError(err, 'NotFound')).toBe(true);
    expect((err as Error).message).toMatch(
      /manifest\/manifest-[0-9a-f-]+-\d+ \(named by manifest list .*manifest-list-[0-9a-f-]+-\d+\)/,
    );
  });

  it('truncated Avro manifest list', async () => {
    const t = copyTable();
    const snap = JSON.parse(readFileSync(path.join(t, 'snapshot/snapshot-5'), 'utf8')) as { baseManifestList: string };
    const f = path.join(t, 'manifest', snap.baseManifestList);
    truncateSync(f, 40);
    const err = await loadPaimonTable(t).catch((e: unknown) => e);
    expect(isFloeError(err, 'Corrupt')).toBe(true);
    expect((err as Error).message).toContain(snap.baseManifestList);
  });

  it('missing data file', async () => {
    const t = copyTable();
    const bucket = path.join(t, 'f1=20/bucket-0');
    for (const n of readdirSync(bucket)) unlinkSync(path.join(bucket, n));
    const err = await count(t).catch((e: unknown) => e);
    expect(isFloeError(err, 'NotFound')).toBe(true);
    expect((err as Error).message).toContain('f1=20/bucket-0/data-');
  });

  it('a directory without schemas is not a table', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-'));
    temps.push(dir);
    const err = await loadPaimonTable(dir).catch((e: unknown) => e);
    expect(isFloeError(err, 'NotFound')).toBe(true);
    expect((err as Error).message).toContain(dir);
  });
});

describe('schema and types', () => {
  it('parses Paimon type strings', () => {
    expect(parseAtomicType('INT NOT NULL', 's')).toEqual({ root: 'INT', nullable: false });
    expect(parseAtomicType('DECIMAL(10, 2)', 's')).toEqual({
      root: 'DECIMAL',
      nullable: true,
      precision: 10,
      scale: 2,
    });
    expect(parseAtomicType('TIMESTAMP(3) WITH LOCAL TIME ZONE', 's')).toEqual({
      root: 'TIMESTAMP_LTZ',
      nullable: true,
      precision: 3,
    });
    expect(parseAtomicType('TIMESTAMP(6)', 's')).toEqual({ root: 'TIMESTAMP', nullable: true, precision: 6 });
    expect(parseAtomicType('STRING', 's').root).toBe('VARCHAR');
    expect(parseAtomicType('VARCHAR(20) NOT NULL', 's')).toEqual({ root: 'VARCHAR', nullable: false, length: 20 });
    expect(parseAtomicType('BYTES', 's').root).toBe('VARBINARY');
    expect(() => parseAtomicType('WHATEVER(', 'schema-9')).toThrow(/schema-9/);
  });

  it('maps to the model, keeping tinyint and smallint', () => {
    expect(toModelType(parseAtomicType('TINYINT', 's'), 1)).toEqual({ kind: 'primitive', name: 'tinyint' });
    expect(toModelType(parseAtomicType('SMALLINT', 's'), 1)).toEqual({ kind: 'primitive', name: 'smallint' });
    expect(toModelType(parseAtomicType('BIGINT', 's'), 1)).toEqual({ kind: 'primitive', name: 'long' });
    expect(toModelType(parseAtomicType('TIMESTAMP(9)', 's'), 1)).toMatchObject({ name: 'timestamp_ns' });
    const row = parsePaimonType({ type: 'ROW<a INT>', fields: [{ id: 5, name: 'a', type: 'INT' }] }, 's');
    expect(toModelType(row, 1)).toEqual({
      kind: 'struct',
      fields: [{ id: 5, name: 'a', required: false, type: { kind: 'primitive', name: 'int' } }],
    });
    const arr = parsePaimonType({ type: 'ARRAY NOT NULL', element: 'STRING NOT NULL' }, 's');
    expect(arr).toMatchObject({ root: 'ARRAY', nullable: false, element: { root: 'VARCHAR', nullable: false } });
  });

  it("applies Paimon's defaults for old schema versions", () => {
    const s = parseSchema(
      Buffer.from(
        '{"version":1,"id":0,"fields":[{"id":0,"name":"a","type":"INT"}],"partitionKeys":[],"primaryKeys":[],"options":{}}',
      ),
      'schema-0',
    );
    expect(s.options.bucket).toBe('1');
    expect(s.options['file.format']).toBe('orc');
    expect(s.timeMillis).toBe(0);
  });

  it('builds escaped Hive-style partition paths with the default partition name', () => {
    const types = [parseAtomicType('STRING', 's'), parseAtomicType('INT', 's'), parseAtomicType('DATE', 's')];
    expect(partitionPath(['p', 'q', 'd'], types, ['a/b=c', null, 19000], {})).toBe(
      'p=a%2Fb%3Dc/q=__DEFAULT_PARTITION__/d=19000',
    );
    expect(partitionPath(['d'], [types[2]!], [19000], { 'partition.legacy-name': 'false' })).toBe('d=2022-01-08');
    expect(escapePathName('x:y')).toBe('x%3Ay');
  });
});
