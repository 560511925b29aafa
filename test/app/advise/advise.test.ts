/**
 * Issue 25.3: `floe advise` on real Iceberg tables written by floe's writer — the demo table and a table
 * with a recorded upsert history (two hours of commits every 3 minutes, upserts as equality deletes) —
 * recommends settings that beat today's and doing nothing on that history; the replay reproduces the real
 * table (the no-compaction run ends with the table's own live data and delete files, and ingests exactly the
 * bytes the snapshots say were added); `--apply` commits only the properties; bad input fails clearly.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adviseTable, type AdviseReport } from '../../../src/app/advise/index.js';
import { openTableForRead } from '../../../src/app/open-table.js';
import { seedDemoTable } from '../../../src/demo/seed.js';
import { loadTableModel } from '../../../connectors/iceberg/table.js';
import { countLiveRows } from '../../../connectors/iceberg/scan.js';
import { createIcebergTable } from '../../../connectors/iceberg/write-table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { DEMO_FIELDS } from '../../../src/demo/seed.js';
import { copyFixture, floe, resultOf } from '../../shells/cli/support.js';
import { writeUpsertHistory } from './history-table.js';
import { createCatalogDb, insertRow, rowsOf } from '../../connectors/catalog-commit/support.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-advise-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The newest metadata document of a filesystem table, read straight from disk (not through floe). */
function latestMetadata(table: string): { file: string; doc: Record<string, unknown> } {
  const dir = path.join(table, 'metadata');
  const files = readdirSync(dir).filter((f) => /^v\d+\.metadata\.json$/.test(f));
  files.sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1)));
  const file = path.join(dir, files[files.length - 1]!);
  return { file, doc: JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown> };
}

type Snap = { summary: Record<string, string>; 'timestamp-ms': number };
const snapshotsOf = (table: string) => latestMetadata(table).doc.snapshots as Snap[];

interface Policy {
  name: string;
  settings: { strategy: string; schedule: { everyMinutes: number }; properties: Record<string, string> };
  predicted: { monthlyCost: number; scanFileOpens: number; maintenanceCost: number; readerCost: number };
}

function expectBeats(rec: Policy['predicted'], other: Policy['predicted']): void {
  expect(rec.monthlyCost).toBeLessThan(other.monthlyCost);
  expect(rec.scanFileOpens).toBeLessThanOrEqual(other.scanFileOpens);
}

describe('floe advise on the demo table', () => {
  let table: string;
  beforeAll(async () => {
    table = (await seedDemoTable(path.join(scratch, 'demo'))).location;
  });

  it('--json: the contract, schema-valid; the recommendation beats the current settings and doing nothing', async () => {
    const before = readdirSync(path.join(table, 'metadata')).sort();
    const chart = path.join(scratch, 'demo.svg');
    const r = await floe('advise', table, '--json', '--out', chart);
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout); // validates against schema/floe-result.schema.json
    expect(doc.command).toBe('advise');
    const current = doc.current as Policy;
    const recommended = doc.recommended as Policy;
    const alternatives = doc.alternatives as Policy[];
    for (const p of [current, recommended, ...alternatives]) {
      expect(typeof p.predicted.monthlyCost).toBe('number');
      expect(typeof p.predicted.scanFileOpens).toBe('number');
    }
    const nothing = alternatives.find((a) => a.name === 'none')!;
    expect(nothing.settings.strategy).toBe('none');
    expect(nothing.predicted.maintenanceCost).toBe(0);
    expectBeats(recommended.predicted, current.predicted);
    expectBeats(recommended.predicted, nothing.predicted);
    // "by how much" is the difference of the two predictions
    const vs = doc.versus as Record<string, { monthlyCostSaved: number; scanFileOpensSaved: number }>;
    expect(vs.current!.monthlyCostSaved).toBeCloseTo(
      current.predicted.monthlyCost - recommended.predicted.monthlyCost,
      9,
    );
    expect(vs.nothing!.scanFileOpensSaved).toBeCloseTo(
      nothing.predicted.scanFileOpens - recommended.predicted.scanFileOpens,
      9,
    );
    // every writer snapshot replayed (the demo has no compactions yet)
    expect((doc.replay as { snapshots: number }).snapshots).toBe(snapshotsOf(table).length);
    // the chart comes from the simulator's renderer, one line per policy
    const svg = readFileSync(chart, 'utf8');
    expect(svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('recommended');
    expect(svg).toContain('no compaction');
    // nothing written to the table without --apply
    expect(readdirSync(path.join(table, 'metadata')).sort()).toEqual(before);
    console.log(
      `demo: recommended ${recommended.name}: $${recommended.predicted.monthlyCost.toFixed(4)}/month, ${recommended.predicted.scanFileOpens.toFixed(1)} scan opens; current $${current.predicted.monthlyCost.toFixed(4)}, ${current.predicted.scanFileOpens.toFixed(1)}; nothing $${nothing.predicted.monthlyCost.toFixed(4)}, ${nothing.predicted.scanFileOpens.toFixed(1)}`,
    );
  });

  it('the human table names the recommendation, the savings and what --apply would set', async () => {
    const r = await floe('advise', table, '--prices', 'r2');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^recommended /m);
    expect(r.stdout).toMatch(/^current /m);
    expect(r.stdout).toMatch(/^nothing /m);
    expect(r.stdout).toMatch(/vs current: \$[0-9.]+\/month saved/);
    expect(r.stdout).toContain('prices     r2');
  });

  it('--prices file.yaml prices every policy by that sheet; a sheet missing a key is refused (exit 2)', async () => {
    const sheet = path.join(scratch, 'prices.yaml');
    writeFileSync(
      sheet,
      'name: gets-only\nputPer1000: 0\ngetPer1000: 1\nlistPer1000: 0\ndeletePer1000: 0\nvcpuHour: 0\n',
    );
    const r = await floe('advise', table, '--json', '--prices', sheet);
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    expect((doc.prices as { name: string }).name).toBe('gets-only');
    // only GETs cost: a reader's monthly cost is 24 scans × 30 days × opens × 2 GET at $1 per 1000
    const rec = (doc.recommended as Policy).predicted;
    expect(rec.readerCost).toBeCloseTo((24 * 30 * rec.scanFileOpens * 2) / 1000, 6);
    writeFileSync(sheet, 'putPer1000: 0\n');
    const bad = await floe('advise', table, '--prices', sheet);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/"getPer1000" must be a number/);
  });

  it('--out chart.png renders the same chart to PNG', async () => {
    const png = path.join(scratch, 'demo.png');
    const r = await floe('advise', table, '--out', png);
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
  });
});

describe('floe advise on a recorded upsert history', () => {
  const startMs = Date.UTC(2026, 5, 1, 8);
  let table: string;
  let commits: number;
  let report: AdviseReport;
  beforeAll(async () => {
    table = path.join(scratch, 'upserts');
    ({ commits } = await writeUpsertHistory(table, { commits: 40, everyMinutes: 3, startMs }));
    report = await adviseTable(table);
  }, 120_000);

  it('replays every writer snapshot at its real time offset', () => {
    expect(report.replay.snapshots).toBe(commits);
    expect(report.replay.fromMs).toBe(startMs + 3 * 60_000);
    expect(report.replay.periodMinutes).toBeGreaterThanOrEqual(117);
    expect(report.replay.partitions).toBe(3);
  });

  it('the no-compaction replay ends as the real table is: same live data and delete files, same bytes added', async () => {
    const none = report.runs.get('none')!;
    const opened = await openTableForRead(table, {});
    const model = await loadTableModel(opened);
    expect(none.liveDataFiles.final).toBe(model.dataFiles.length);
    expect(none.deleteFiles.final).toBe(model.deleteFiles.length);
    const added = snapshotsOf(table).reduce((s, x) => s + Number(x.summary['added-files-size'] ?? 0), 0);
    expect(Math.abs(none.bytesIngested - added)).toBeLessThanOrEqual(commits); // per-file rounding only
  });

  it('recommends settings that beat the defaults and doing nothing on that history, and says by how much', () => {
    // the table has no properties: "current" is floe's defaults, evaluated hourly
    expect(report.current.settings.properties['self-optimizing.minor.trigger.file-count']).toBe('12');
    expectBeats(report.recommended.predicted, report.current.predicted);
    expectBeats(report.recommended.predicted, report.nothing.predicted);
    expect(report.versus.current.monthlyCostSaved).toBeGreaterThan(0);
    expect(report.versus.nothing.scanFileOpensSavedPercent).toBeGreaterThan(0);
    expect(report.violations).toEqual([]);
    console.log(
      `upserts: recommended ${report.recommended.name} saves ${report.versus.current.monthlyCostSavedPercent.toFixed(1)} % of the monthly cost and ${report.versus.current.scanFileOpensSavedPercent.toFixed(1)} % of scan opens vs the defaults; ${report.versus.nothing.monthlyCostSavedPercent.toFixed(1)} % / ${report.versus.nothing.scanFileOpensSavedPercent.toFixed(1)} % vs nothing`,
    );
  });
});

describe('floe advise --apply', () => {
  let table: string;
  beforeAll(async () => {
    table = path.join(scratch, 'lazy');
    // a table configured to compact far too rarely (a trigger of 500 files, eq→pos only at ratio 50), read by
    // dashboards once a minute (--scans-per-day 1440): readers pay for every small file
    await writeUpsertHistory(table, {
      commits: 24,
      everyMinutes: 5,
      startMs: Date.UTC(2026, 5, 2, 8),
      properties: {
        'self-optimizing.minor.trigger.file-count': '500',
        'self-optimizing.minor.eq-to-pos.delete-ratio': '50',
      },
    });
  }, 120_000);

  it('commits the recommended properties (metadata only) and floe reads them back; rows and snapshots unchanged', async () => {
    const opened = await openTableForRead(table, {});
    const rowsBefore = await countLiveRows(opened);
    const before = latestMetadata(table).doc;
    const r = await floe('advise', table, '--apply', '--json', '--current-every', '15m', '--scans-per-day', '1440');
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    const changes = doc.propertyChanges as Record<string, string>;
    expect(Object.keys(changes).length).toBeGreaterThan(0);
    for (const [key, v] of Object.entries(changes))
      expect((before.properties as Record<string, string>)[key]).not.toBe(v);
    const applied = doc.applied as { committed: boolean; metadataLocation: string; properties: Record<string, string> };
    expect(applied.committed).toBe(true);
    expect(applied.properties).toEqual(changes);

    const after = latestMetadata(table);
    expect(path.resolve(after.file)).toBe(path.resolve(applied.metadataLocation.replace(/^file:\/\//, '')));
    expect(after.doc.properties).toEqual({ ...(before.properties as object), ...changes });
    expect(after.doc['current-snapshot-id']).toEqual(before['current-snapshot-id']);
    expect((after.doc.snapshots as unknown[]).length).toBe((before.snapshots as unknown[]).length);
    const reread = await openTableForRead(table, {});
    expect(reread.metadata.properties).toMatchObject(changes);
    expect(await countLiveRows(reread)).toBe(rowsBefore);
  });
});

describe('floe advise --apply through a SQL catalog', () => {
  it('publishes the properties by compare-and-swap of the catalog row; the table reads them back', async () => {
    const table = path.join(scratch, 'in-catalog');
    await writeUpsertHistory(table, {
      commits: 12,
      everyMinutes: 5,
      startMs: Date.UTC(2026, 5, 4, 8),
      properties: { 'self-optimizing.minor.trigger.file-count': '500' },
    });
    const db = path.join(scratch, 'catalog.db');
    const registered = latestMetadata(table).file;
    createCatalogDb(db);
    insertRow(db, {
      catalog_name: 'prod',
      table_namespace: 'db',
      table_name: 't',
      metadata_location: registered,
      previous_metadata_location: null,
    });
    const r = await floe('advise', 'db.t', '--catalog', `sql:${db}`, '--apply', '--json', '--scans-per-day', '1440');
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    const changes = doc.propertyChanges as Record<string, string>;
    expect(Object.keys(changes).length).toBeGreaterThan(0);
    const [row] = rowsOf(db);
    expect(row!.previous_metadata_location).toBe(registered);
    expect(row!.metadata_location).toBe((doc.applied as { metadataLocation: string }).metadataLocation);
    const reread = await openTableForRead('db.t', { catalog: `sql:${db}` });
    expect(reread.metadata.properties).toMatchObject(changes);
  }, 120_000);
});

describe('floe advise: bad input', () => {
  it('no table: NotFound, exit 1, nothing written', async () => {
    const missing = path.join(scratch, 'no-such-table');
    const r = await floe('advise', missing, '--json');
    expect(r.code).toBe(1);
    expect(JSON.stringify(resultOf(r.stdout))).toContain('no-such-table');
    expect(existsSync(missing)).toBe(false);
  });

  it('a table without history: a clear error naming the table, exit 1', async () => {
    const empty = path.join(scratch, 'empty');
    const io = new FileIO();
    await createIcebergTable(io, empty, { fields: DEMO_FIELDS });
    io.destroy();
    const r = await floe('advise', empty);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no snapshots, so there is no history to replay/);
    expect(r.stderr).toContain(empty);
  });

  it('bad options are usage errors (exit 2) before anything is read', async () => {
    const demo = path.join(scratch, 'demo', 'demo', 'events');
    for (const args of [
      ['--prices', 'nowhere'],
      ['--out', 'chart.txt'],
      ['--scans-per-day', '0'],
      ['--current-every', 'soon'],
    ]) {
      const r = await floe('advise', demo, ...args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
    }
  });

  it('a Paimon table is refused with a message saying advise reads Iceberg history', async () => {
    const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    try {
      const r = await floe('advise', paimon.dir);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/Paimon tables are not supported yet/);
    } finally {
      paimon.cleanup();
    }
  });
});
