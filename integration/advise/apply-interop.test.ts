/**
 * Issue 25.3: `floe advise --apply` commits table properties that the reference engines see: Java Iceberg
 * reads the same rows after the properties-only commit and appends on top of it (keeping the properties),
 * and PyIceberg reads the properties from the resulting metadata.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { javaIceberg, pyiceberg, repoRoot } from '../oracles/index.js';
import { skipLoudly } from '../iceberg-compaction/helpers.js';
import { floe, resultOf } from '../../test/shells/cli/support.js';
import { writeUpsertHistory } from '../../test/app/advise/history-table.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-advise-int-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
const python = process.env.FLOE_ORACLE_PYTHON ?? path.join(repoRoot, '.venv/bin/python');

function latestMetadataFile(table: string): string {
  const files = readdirSync(path.join(table, 'metadata')).filter((f) => /^v\d+\.metadata\.json$/.test(f));
  files.sort((a, b) => parseInt(a.slice(1)) - parseInt(b.slice(1)));
  return path.join(table, 'metadata', files[files.length - 1]!);
}

/** Properties and current snapshot as PyIceberg reads them from a metadata file. */
function pyIcebergView(metadataFile: string): { properties: Record<string, string>; snapshot: string } {
  const script = [
    'import json, sys',
    'from pyiceberg.table import StaticTable',
    't = StaticTable.from_metadata(sys.argv[1])',
    'print(json.dumps({"properties": dict(t.properties), "snapshot": str(t.current_snapshot().snapshot_id)}))',
  ].join('\n');
  const r = spawnSync(python, ['-B', '-c', script, metadataFile], { encoding: 'utf8', timeout: 60_000 });
  if (r.status !== 0) throw new Error(`pyiceberg failed: ${r.stderr}`);
  return JSON.parse(r.stdout) as { properties: Record<string, string>; snapshot: string };
}

describe('advise --apply, read back by Java Iceberg and PyIceberg', () => {
  it('properties committed, rows unchanged, Java appends on top, PyIceberg sees the properties', async (ctx) => {
    const java = await javaIceberg.available();
    if (!java.ok) skipLoudly(ctx, `java oracle unavailable: ${java.reason}`);
    const py = await pyiceberg.available();
    if (!py.ok) skipLoudly(ctx, `pyiceberg unavailable: ${py.reason}`);

    const table = path.join(scratch, 'lazy');
    await writeUpsertHistory(table, {
      commits: 20,
      everyMinutes: 5,
      startMs: Date.UTC(2026, 5, 3, 8),
      // converting equality deletes only at a delete-to-data ratio of 50: readers merge many deletes
      properties: {
        'self-optimizing.minor.trigger.file-count': '500',
        'self-optimizing.minor.eq-to-pos.delete-ratio': '50',
      },
    });
    const rowsBefore = await javaIceberg.count(table);

    const r = await floe('advise', table, '--apply', '--json', '--current-every', '15m', '--scans-per-day', '1440');
    expect(r.code, r.stderr).toBe(0);
    const doc = resultOf(r.stdout);
    const changes = doc.propertyChanges as Record<string, string>;
    expect(Object.keys(changes).length).toBeGreaterThan(0);
    expect((doc.applied as { committed: boolean }).committed).toBe(true);

    expect(await javaIceberg.count(table)).toBe(rowsBefore);
    await javaIceberg.append(table, [{ id: 999_999, region: 'eu', amount: '3.00', ts: null, note: 'java' }]);
    expect(await javaIceberg.count(table)).toBe(rowsBefore + 1);

    const file = latestMetadataFile(table);
    expect(existsSync(file)).toBe(true);
    const view = pyIcebergView(file);
    expect(view.properties).toMatchObject(changes);
  }, 300_000);
});
