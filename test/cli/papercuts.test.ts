/**
 * Issue 28: what a new user trips over after the first demo — one test per small item (the bigger ones have
 * their own files: health score in test/iceberg/health.test.ts, progress in progress.test.ts, a closed
 * stdout in closed-stdout.test.ts). Real fixtures, the real command line.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { suggestName } from '../../src/util/did-you-mean.js';
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
