/**
 * Issue 28: what a new user trips over after the first demo — one test per small item (the bigger ones have
 * their own files: health score in test/connectors/iceberg/health.test.ts, progress in progress.test.ts, a closed
 * stdout in closed-stdout.test.ts). Real fixtures, the real command line.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { suggestName } from '../../../util/did-you-mean.js';
import { expireTable } from '../../../src/app/expire.js';
import { removeTableOrphans } from '../../../src/app/remove-orphans.js';
import { loadCurrentModel } from '../../../src/app/table-model.js';
import { convertedNote } from '../../../src/core/simulate/report.js';
import type { PolicyResult } from '../../../src/core/simulate/types.js';
import { buildDetail, healthSummary } from '../../../src/shells/service/table-detail.js';
import { listedLocation } from '../../../src/shells/service/api.js';
import type { TableConfig } from '../../../src/shells/service/config.js';
import { copyFixture, fixtures, floe } from './support.js';

/** The table's files (the run's lease under .floe/ is not table content). */
const listing = (dir: string) =>
  readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => !f.startsWith('.floe'))
    .sort();

describe('28.7 dry runs never say they did something', () => {
  it('expire --dry-run with a corrupt manifest list of a kept snapshot: the refusal the real run makes, nothing "already removed"', async () => {
    const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
    try {
      const md = JSON.parse(readFileSync(path.join(t.dir, 'metadata/v7.metadata.json'), 'utf8')) as {
        'current-snapshot-id': number;
        snapshots: { 'snapshot-id': number; 'manifest-list': string }[];
      };
      // the current snapshot is always kept; its id fits a double here (1497619269847778439 is read as text below)
      const list = md.snapshots.find((s) => s['snapshot-id'] === md['current-snapshot-id'])!['manifest-list'];
      writeFileSync(path.join(t.dir, 'metadata', path.basename(list)), 'not avro');
      const before = listing(t.dir);
      const dry = await floe('expire', t.dir, '--dry-run', '--retain-last', '1', '--older-than', '0s');
      expect(dry.code).not.toBe(0);
      expect(dry.stderr).toMatch(/cannot read manifest list .*snap-1497619269847778439/);
      expect(dry.stderr).toMatch(/nothing was changed/);
      expect(dry.stderr).not.toMatch(/already removed|were removed|was deleted/);
      const real = await floe('expire', t.dir, '--retain-last', '1', '--older-than', '0s');
      expect(real.code).toBe(dry.code);
      expect(real.stderr).toMatch(/nothing was changed/);
      expect(listing(t.dir)).toEqual(before);
    } finally {
      t.cleanup();
    }
  });
});

describe('28.3/28.10 did you mean', () => {
  const ice = () => path.join(fixtures, 'impala/iceberg_partitioned');
  it('--where with an unknown column names the column and the closest one, not self-optimizing.filter', async () => {
    const r = await floe('compact', ice(), '--dry-run', '--where', "acton = 'view'");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--where "acton = 'view'": unknown column acton \(did you mean action\?\)/);
    expect(r.stderr).not.toMatch(/self-optimizing\.filter/);
    // Paimon: partition columns only
    const p = await floe('compact', path.join(fixtures, 'paimon-cpp/pk_09'), '--dry-run', '--where', 'f = 10');
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/column f is not a partition column \(did you mean f1\?\)/);
  });
  it('--strategy binpak → binpack', async () => {
    const r = await floe('compact', ice(), '--dry-run', '--strategy', 'binpak');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/got binpak \(did you mean binpack\?\)/);
  });
  it("-o target-file-size on an Iceberg table → target-file-size-bytes (the Paimon key's sibling)", async () => {
    const r = await floe('compact', ice(), '--dry-run', '-o', 'target-file-size=134217728');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/applies to Paimon tables; the table is Iceberg — did you mean target-file-size-bytes\?/);
  });
  it('simulate nonsense lists the presets; a near miss is named', async () => {
    const r = await floe('simulate', 'nonsense');
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/neither a preset nor a commit stream file; presets: append-1h, upsert-1h/);
    const near = await floe('simulate', 'upsert-1m');
    expect(near.stderr).toMatch(/\(did you mean upsert-1h\?\)/);
  });
  it('suggestName: typos, heads and tails; nothing for an unrelated word', () => {
    expect(suggestName('binpak', ['tiered', 'binpack'])).toBe('binpack');
    expect(suggestName('target-size', ['self-optimizing.target-size'])).toBe('self-optimizing.target-size');
    expect(suggestName('target-file-size', ['target-file-size-bytes', 'x'])).toBe('target-file-size-bytes');
    expect(suggestName('nonsense', ['append-1h', 'upsert-1h'])).toBeUndefined();
  });
});

describe('28.3 messages name the file’s real place beside the metadata’s path', () => {
  it('inspect of a relocated copy: the table line shows where it is and what the metadata says', async () => {
    const r = await floe('inspect', path.join(fixtures, 'impala/iceberg_partitioned'));
    expect(r.code).toBe(0);
    const real = `file://${path.join(fixtures, 'impala/iceberg_partitioned')}`;
    expect(r.stdout).toContain(
      `table            ${real}  (metadata names /test-warehouse/iceberg_test/iceberg_partitioned)`,
    );
    const j = JSON.parse(
      (await floe('inspect', path.join(fixtures, 'impala/iceberg_partitioned'), '--json')).stdout,
    ) as {
      location: string;
      realLocation: string;
    };
    expect(j).toMatchObject({ location: '/test-warehouse/iceberg_test/iceberg_partitioned', realLocation: real });
  });
  it('a corrupt Parquet file of a relocated copy is named by its local path (scan and compact)', async () => {
    const t = copyFixture('impala/iceberg_partitioned');
    try {
      const dir = path.join(t.dir, 'data/event_time_hour=2020-01-01-09/action=click');
      const name = readdirSync(dir).find((f) => f.endsWith('.parquet'))!;
      const bytes = readFileSync(path.join(dir, name));
      bytes.write('XXXX', 0); // no PAR1 magic
      writeFileSync(path.join(dir, name), bytes);
      const local = `file://${path.join(dir, name)}`;
      const meta = `/test-warehouse/iceberg_test/iceberg_partitioned/data/event_time_hour=2020-01-01-09/action=click/${name}`;
      const scan = await floe('scan', t.dir, '--count', '--progress', 'none');
      expect(scan.code).toBe(1);
      expect(scan.stderr).toContain(`Parquet file ${local} (metadata names ${meta}) is corrupt`);
      const compact = await floe('compact', t.dir, '--progress', 'none', '--no-lease');
      expect(compact.stdout).toContain(`FAILED tiered-3: Parquet file ${local} (metadata names ${meta}) is corrupt`);
    } finally {
      t.cleanup();
    }
  });
  it('inspect counts the manifests a reader opens, as --explain does', async () => {
    const t = copyFixture('impala/iceberg_partitioned');
    try {
      expect((await floe('compact', t.dir, '--progress', 'none', '--no-lease')).code).toBe(0);
      expect((await floe('compact', t.dir, '-o', 'rewrite-all=true', '--progress', 'none', '--no-lease')).code).toBe(0);
      const r = await floe('inspect', t.dir, '--explain');
      // two compactions: the first one's manifest now holds only deleted entries
      expect(r.stdout).toMatch(/manifests {8}2 data, 0 delete — 1 with live files .*; 1 hold only deleted entries/);
      expect(r.stdout).toMatch(/\+ 1 manifest\(s\) × open-cost/);
    } finally {
      t.cleanup();
    }
  });
});

describe('28.9 library options are typed', () => {
  it('expireTable takes numbers for retainLast and maxConcurrentDeletes (text still accepted), and checks them', async () => {
    const t = copyFixture('impala/iceberg_v2_positional_not_all_data_files_have_delete_files');
    try {
      const typed = await expireTable(t.dir, { dryRun: true, olderThan: '0s', retainLast: 2, maxConcurrentDeletes: 2 });
      expect(typed.details.retainedSnapshots).toBe(2);
      const text = await expireTable(t.dir, { dryRun: true, olderThan: '0s', retainLast: '2' });
      expect(text.details.expiredSnapshots).toEqual(typed.details.expiredSnapshots);
      await expect(expireTable(t.dir, { dryRun: true, retainLast: 1.5 })).rejects.toThrow(
        /retain-last: 1.5 is not a non-negative integer/,
      );
      await expect(removeTableOrphans(t.dir, { dryRun: true, maxConcurrentDeletes: -1 })).rejects.toThrow(
        /max-concurrent-deletes: -1 is not a non-negative integer/,
      );
    } finally {
      t.cleanup();
    }
  });
});

describe('28.10 small inconsistencies', () => {
  it('compaction says the records it dropped were deleted rows', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const r = await floe('compact', t.dir, '--full', '--progress', 'none', '--no-lease');
      expect(r.code, r.stderr).toBe(0);
      // 20 rows in data files, 10 of them position-deleted (MANIFEST.md: count 10)
      expect(r.stdout).toMatch(/records +20 +10 {2}\(10 deleted rows dropped; the live rows are unchanged\)/);
    } finally {
      t.cleanup();
    }
  });
  it('a default expire names the retention it applied (Iceberg and Paimon)', async () => {
    const ice = await floe(
      'expire',
      path.join(fixtures, 'impala/iceberg_partitioned'),
      '--dry-run',
      '--progress',
      'none',
    );
    expect(ice.stdout).toMatch(
      /retention: snapshots older than 5d \(.*; history\.expire\.max-snapshot-age-ms default\), keeping at least 1 per branch \(history\.expire\.min-snapshots-to-keep default\)/,
    );
    const asked = await floe(
      'expire',
      path.join(fixtures, 'impala/iceberg_partitioned'),
      '--dry-run',
      '--older-than',
      '36h',
      '--retain-last',
      '3',
      '--progress',
      'none',
    );
    expect(asked.stdout).toMatch(/older than 1d 12h \(.*; as asked\), keeping at least 3 per branch \(as asked\)/);
    const p = await floe(
      'expire',
      path.join(fixtures, 'paimon-cpp/append_table_with_alter_table'),
      '--dry-run',
      '--progress',
      'none',
    );
    expect(p.stdout).toMatch(
      /retention: snapshots older than 1h \(.*; snapshot\.time-retained default\), keeping at least 10 \(snapshot\.num-retained\.min default\)/,
    );
  });
  it('Paimon remove-orphans: files it never deletes are counted and named as such, not as an empty "skipped"', async () => {
    const r = await floe(
      'remove-orphans',
      path.join(fixtures, 'paimon-cpp/append_table_with_alter_table'),
      '--dry-run',
      '--json',
      '--progress',
      'none',
    );
    const doc = JSON.parse(r.stdout) as { skipped: unknown[]; details: Record<string, unknown> };
    expect(doc.skipped).toEqual([]);
    expect(doc.details.skipped).toBeUndefined();
    expect(doc.details).toMatchObject({ neverDeleted: 2, neverDeletedFiles: ['schema/schema-0', 'schema/schema-1'] });
  });
  it('the simulator explains a converted table’s "N+N" final files (the upsert preset’s 1845+1843)', () => {
    // the upsert-1h preset's final counts (30 s to simulate on this machine: its numbers are given here)
    const row = (policy: string, data: number, deletes: number) =>
      ({ policy, liveDataFiles: { final: data }, deleteFiles: { final: deletes } }) as unknown as PolicyResult;
    const note = convertedNote([row('none', 2320, 960), row('floe-tiered', 1845, 1843)]).join('\n');
    expect(note).toMatch(
      /1845\+1843 \(floe-tiered\): converting equality deletes writes one position-delete file per data/,
    );
    expect(note).toMatch(/each applying to its own file only/);
    // a table with fewer deletes than that (unconverted) gets no note
    expect(convertedNote([row('none', 2320, 960)])).toEqual([]);
  });
  it('the dashboard shows partitions as the CLI does (hour transform as a date-hour, names of the fields)', async () => {
    const model = await loadCurrentModel(path.join(fixtures, 'impala/iceberg_partitioned'));
    const d = buildDetail({ name: 't' } as TableConfig, model, 0);
    expect(d.partitions.map((p) => p.partition).sort()).toEqual([
      'event_time_hour=2020-01-01-08, action=view',
      'event_time_hour=2020-01-01-09, action=click',
      'event_time_hour=2020-01-01-10, action=download',
    ]);
  });
  it('a catalog table is listed by its metadata location once read, by catalog and name before', async () => {
    const model = await loadCurrentModel(path.join(fixtures, 'impala/iceberg_partitioned'));
    const health = healthSummary(model, 0);
    expect(health.location).toBe('/test-warehouse/iceberg_test/iceberg_partitioned');
    const cfg = { access: { catalog: 'sql:/x.db' }, source: 'lake' };
    expect(listedLocation('sales.events', cfg, health)).toBe('/test-warehouse/iceberg_test/iceberg_partitioned');
    expect(listedLocation('sales.events', cfg, undefined)).toBe('sales.events in catalog lake');
    expect(listedLocation('/t/a', { access: {}, source: 'config' }, undefined)).toBe('/t/a');
  });
});
