/**
 * Partition expiry (Paimon's PartitionExpire, values-time strategy) on a Java-written partitioned append
 * table (paimon-cpp/append_table_with_alter_table, partitions key0=0/key1=1 and key0=1/key1=1), with the
 * partition time built by `partition.timestamp-pattern`. Also the time extractor on its own.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expirePaimonPartitions, partitionTimeExtractor } from '../../../connectors/paimon/expire-partitions.js';
import { openPaimonTable, type PaimonTable } from '../../../connectors/paimon/table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';

const fileIO = new FileIO();
const localPaimonStorage = () => fileIO;
import { scanPaimon } from '../../../connectors/paimon/index.js';
import { cleanup, copyFixture, hasFixtures, fixtures } from '../paimon-compact/helpers.js';

afterAll(() => {
  cleanup();
  fileIO.destroy();
});

const utc = (s: string) => Date.parse(`${s}Z`);

describe('partition time extractor (PartitionTimeExtractor)', () => {
  it('default format: y-M-d with optional time, lenient months; unparsable → undefined', () => {
    const x = partitionTimeExtractor(undefined, undefined);
    expect(x(['dt'], ['2024-03-05'])).toBe(utc('2024-03-05T00:00:00'));
    expect(x(['dt'], ['2024-3-5 7:08:09'])).toBe(utc('2024-03-05T07:08:09'));
    expect(x(['dt'], ['2024-03-05 07:08:09.5'])).toBe(utc('2024-03-05T07:08:09.500'));
    expect(x(['dt'], ['2024-13-01'])).toBe(utc('2025-01-01T00:00:00')); // LENIENT rolls over
    expect(x(['dt'], ['20240305'])).toBeUndefined();
    expect(x(['dt'], [null])).toBeUndefined();
  });
  it('pattern replaces $key by each value; formatter is a DateTimeFormatter pattern', () => {
    const x = partitionTimeExtractor('$dt $hour:00:00', undefined);
    expect(x(['dt', 'hour'], ['2024-03-05', '17'])).toBe(utc('2024-03-05T17:00:00'));
    expect(x(['dt', 'hour'], ['2024-03-05', null])).toBeUndefined();
    const f = partitionTimeExtractor(undefined, 'yyyyMMdd');
    expect(f(['dt'], ['20240305'])).toBe(utc('2024-03-05T00:00:00'));
    expect(f(['dt'], ['2024-03-05'])).toBeUndefined();
    expect(f(['dt'], ['20240431'])).toBe(utc('2024-04-30T00:00:00')); // SMART resolver clamps the day
    const g = partitionTimeExtractor('$dt$h', 'yyyyMMddHH');
    expect(g(['dt', 'h'], ['20240305', '09'])).toBe(utc('2024-03-05T09:00:00'));
    const q = partitionTimeExtractor(undefined, "yyyy-MM-dd'T'HH");
    expect(q(['dt'], ['2024-03-05T09'])).toBe(utc('2024-03-05T09:00:00'));
  });
  it('refuses a formatter letter it cannot honour, naming the option', () => {
    expect(() => partitionTimeExtractor(undefined, 'yyyy-MMM-dd EEE')).toThrow(/partition.timestamp-formatter.*'E'/);
  });
});

function listAll(dir: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const n of readdirSync(d)) {
      const p = path.join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(path.relative(dir, p), statSync(p).mtimeMs);
    }
  };
  walk(dir);
  return out;
}

async function rows(table: string, snapshotId?: bigint): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(table, snapshotId !== undefined ? { snapshotId } : {}))
    out.push(JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  return out.sort();
}

function withOptions(t: PaimonTable, o: Record<string, string>): PaimonTable {
  return { ...t, schema: { ...t.schema, options: { ...t.schema.options, ...o } } };
}

// key0=0 → 2024-01-10, key0=1 → 2024-01-11; now 2024-01-12 12:00, expiration 36 h → cutoff 2024-01-11 00:00
const OPTIONS = { 'partition.expiration-time': '36 h', 'partition.timestamp-pattern': '2024-01-1$key0' };
const NOW = utc('2024-01-12T12:00:00');

describe.runIf(hasFixtures)('expire-partitions on a Java-written partitioned table', () => {
  it('dry run lists the expired partition and writes nothing', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const before = listAll(t);
    const r = await expirePaimonPartitions(withOptions(await openPaimonTable(t), OPTIONS), localPaimonStorage(), {
      nowMs: NOW,
      dryRun: true,
    });
    expect(r.expired.map((p) => p.partition)).toEqual([{ key0: '0', key1: '1' }]);
    expect(r.expireBefore).toBe('2024-01-11T00:00:00');
    expect(r.snapshotIds).toEqual([]);
    expect(listAll(t)).toEqual(before);
  });

  it('commits one OVERWRITE snapshot deleting every file of the expired partition; the boundary partition stays', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const table = await openPaimonTable(t);
    const base = table.snapshot!.id;
    const allRows = await rows(t);
    const dropped = table.files.filter((f) => f.partition[0] === 0);
    expect(dropped.length).toBeGreaterThan(0);
    const r = await expirePaimonPartitions(withOptions(table, OPTIONS), localPaimonStorage(), { nowMs: NOW });
    expect(r.snapshotIds).toEqual([String(base + 1n)]);
    const snap = JSON.parse(readFileSync(path.join(t, 'snapshot', `snapshot-${base + 1n}`), 'utf8'));
    expect(snap.commitKind).toBe('OVERWRITE');
    expect(snap.commitIdentifier).toBe(2 ** 63); // Long.MAX_VALUE as JSON.parse gives it: the double 2^63
    const removed = dropped.reduce((n, f) => n + Number(f.meta.rowCount), 0);
    expect(snap.deltaRecordCount).toBe(-removed);
    expect(snap.totalRecordCount).toBe(Number(table.snapshot!.totalRecordCount) - removed);
    const after = await openPaimonTable(t);
    expect(after.files.every((f) => f.partition[0] === 1)).toBe(true);
    expect(after.files.length).toBe(table.files.length - dropped.length);
    const kept = await rows(t);
    expect(kept.length).toBe(allRows.length - removed);
    expect(kept.every((line) => JSON.parse(line).key0 === 1)).toBe(true);
    // nothing deleted: the old snapshot still reads every row
    for (const f of dropped) expect(statSync(f.path).isFile()).toBe(true);
    expect(await rows(t, base)).toEqual(allRows);
    // a second run finds nothing left to expire
    const again = await expirePaimonPartitions(withOptions(await openPaimonTable(t), OPTIONS), localPaimonStorage(), {
      nowMs: NOW,
    });
    expect(again.expired).toEqual([]);
    expect(again.snapshotIds).toEqual([]);
  });

  it('partition.expiration-max-num and batch size bound the run', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const late = utc('2024-02-01T00:00:00');
    const one = await expirePaimonPartitions(
      withOptions(await openPaimonTable(t), { ...OPTIONS, 'partition.expiration-max-num': '1' }),
      localPaimonStorage(),
      { nowMs: late, dryRun: true },
    );
    expect(one.expired.map((p) => p.partition.key0)).toEqual(['0']);
    expect(one.deferred).toBe(1);
    const batched = await expirePaimonPartitions(
      withOptions(await openPaimonTable(t), { ...OPTIONS, 'partition.expiration-batch-size': '1' }),
      localPaimonStorage(),
      { nowMs: late },
    );
    expect(batched.expired.map((p) => p.partition.key0)).toEqual(['0', '1']);
    expect(batched.snapshotIds).toHaveLength(2);
    expect((await openPaimonTable(t)).files).toEqual([]);
  });

  it('refuses without partition.expiration-time, an unpartitioned table, and other strategies — before writing', async () => {
    const t = copyFixture('append_table_with_alter_table');
    const before = listAll(t);
    const table = await openPaimonTable(t);
    await expect(expirePaimonPartitions(table, localPaimonStorage(), { nowMs: NOW })).rejects.toThrow(
      /partition.expiration-time/,
    );
    await expect(
      expirePaimonPartitions(
        withOptions(table, { ...OPTIONS, 'partition.expiration-strategy': 'update-time' }),
        localPaimonStorage(),
        { nowMs: NOW },
      ),
    ).rejects.toThrow(/partition.expiration-strategy=update-time/);
    const flat = { ...table, schema: { ...table.schema, partitionKeys: [] } };
    await expect(
      expirePaimonPartitions(withOptions(flat, OPTIONS), localPaimonStorage(), { nowMs: NOW }),
    ).rejects.toThrow(/not partitioned/);
    expect(listAll(t)).toEqual(before);
  });
});

it('fixtures are present (a run without them must fail, not skip)', () => {
  expect(hasFixtures, `missing ${fixtures}`).toBe(true);
});
