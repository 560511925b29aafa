/**
 * The application layer (src/app) as library users call it: open a table by path, detect its format, run a
 * job with typed options, get the floe-result/1 document. The same functions the CLI and `floe serve` run,
 * on real tables written by other engines (../shared/fixtures).
 */
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compactResult, compactResultDocument, compactTable } from '../../src/app/compact.js';
import { inspectResult, inspectTable } from '../../src/app/inspect.js';
import { writeTableScan } from '../../src/app/scan.js';
import { expireTable } from '../../src/app/expire.js';
import { rewriteTableManifests } from '../../src/app/rewrite-manifests.js';
import { maintenanceResult } from '../../src/app/maintenance-result.js';
import { detectTableFormat } from '../../src/app/table-format.js';
import { loadCurrentModel } from '../../src/app/table-model.js';
import { fileIOFromEnv, openIcebergForWrite } from '../../src/app/open-table.js';
import { RESULT_SCHEMA_ID } from '../../src/app/result.js';
import * as root from '../../src/index.js';
import { caught, copyFixture } from '../connectors/iceberg/helpers.js';
import { spawnFloe } from '../shells/cli/support.js';

const iceberg = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
const paimon = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
afterAll(() => {
  iceberg.cleanup();
  paimon.cleanup();
});

async function scanText(ref: string, o: { count?: boolean } = {}): Promise<string> {
  const chunks: string[] = [];
  await writeTableScan(ref, o, (c) => {
    chunks.push(c);
  });
  return chunks.join('');
}

describe('src/app: opening and format detection', () => {
  it('tells Iceberg from Paimon by the layout; a catalog names Iceberg tables', async () => {
    const files = fileIOFromEnv();
    try {
      expect(await detectTableFormat(iceberg.dir, files)).toBe('iceberg');
      expect(await detectTableFormat(paimon.dir, files)).toBe('paimon');
      expect(await detectTableFormat('ns.t', files, { catalog: 'sql:/nowhere.db' })).toBe('iceberg');
    } finally {
      files.destroy();
    }
  });

  it('loadCurrentModel reads either format into the neutral model', async () => {
    const ice = await loadCurrentModel(iceberg.dir);
    expect(ice.format).toBe('iceberg');
    // 3 position delete files, one per partition (MANIFEST.md)
    expect(ice.deleteFiles).toHaveLength(3);
    const pai = await loadCurrentModel(paimon.dir);
    expect(pai.format).toBe('paimon');
    expect(pai.dataFiles.length).toBeGreaterThan(1);
  });

  it('openIcebergForWrite follows a copied table to where it was opened and can commit there', async () => {
    const opened = await openIcebergForWrite(iceberg.dir, {});
    try {
      // the fixture's metadata names /test-warehouse/…; the copy lives in a temp directory
      expect(opened.table.metadata.location).toMatch(/^\/test-warehouse\//);
      expect(opened.ops).toBeDefined();
    } finally {
      opened.files.destroy();
    }
  });
});

describe('src/app: jobs return the one result shape', () => {
  it('inspect: Iceberg and Paimon reports, each as a floe-result/1 document', async () => {
    const ice = await inspectTable(iceberg.dir);
    expect(ice.format).toBe('iceberg');
    const pai = await inspectTable(paimon.dir);
    expect(pai.format).toBe('paimon');
    for (const r of [ice, pai]) {
      const doc = inspectResult(r);
      expect(doc).toMatchObject({ schemaVersion: RESULT_SCHEMA_ID, command: 'inspect', exitCode: 0, status: 'ok' });
      // bigint snapshot ids travel as decimal strings
      expect(JSON.parse(JSON.stringify(doc)).format).toBe(r.format);
    }
    await expect(caught(inspectTable(iceberg.dir, { targetSize: 0 }))).resolves.toMatchObject({
      kind: 'InvalidArgument',
    });
  });

  it('scan: the live rows with deletes applied (the counts the origin repositories state)', async () => {
    expect((await scanText(iceberg.dir, { count: true })).trim()).toBe('10');
    expect((await scanText(paimon.dir, { count: true })).trim()).toBe('11');
    const lines = (await scanText(iceberg.dir)).trim().split('\n');
    expect(lines).toHaveLength(10);
    expect(() => JSON.parse(lines[0]!) as unknown).not.toThrow();
  });

  it('compact (Iceberg): a dry run writes nothing; a real run commits and keeps every live row', async () => {
    const t = copyFixture('impala/iceberg_v2_partitioned_position_deletes');
    try {
      const dry = await compactTable(t.dir, { dryRun: true, strategy: 'binpack', options: { 'rewrite-all': 'true' } });
      expect(dry.format).toBe('iceberg');
      const dryResult = compactResult(dry);
      expect(dryResult.snapshots).toEqual([]);
      expect(dryResult.tasks.length).toBeGreaterThan(0);
      expect(dryResult.tasks.every((x) => x.outcome === 'planned')).toBe(true);

      const run = await compactTable(t.dir, { strategy: 'binpack', options: { 'rewrite-all': 'true' } });
      const result = compactResult(run);
      expect(result.snapshots).toHaveLength(1);
      expect(result.after?.deleteFiles).toBe(0);
      expect(compactResultDocument(result)).toMatchObject({
        schemaVersion: RESULT_SCHEMA_ID,
        command: 'compact',
        exitCode: 0,
        status: 'ok',
        format: 'iceberg',
      });
      expect((await scanText(t.dir, { count: true })).trim()).toBe('10');
    } finally {
      t.cleanup();
    }
  });

  it('compact (Paimon): the format is detected; a full compaction keeps the 11 merged rows', async () => {
    const t = copyFixture('paimon-cpp/pk_table_scan_and_read_mor');
    try {
      const before = await scanText(t.dir);
      const run = await compactTable(t.dir, { full: true });
      expect(run.format).toBe('paimon');
      const result = compactResult(run);
      expect(result.format).toBe('paimon');
      expect(result.snapshots).toHaveLength(1);
      const after = await scanText(t.dir);
      expect(after.trim().split('\n').sort()).toEqual(before.trim().split('\n').sort());
      expect(after.trim().split('\n')).toHaveLength(11);
    } finally {
      t.cleanup();
    }
  });

  it('expire (dry run) gives the maintenance result document; rewrite-manifests refuses a Paimon table', async () => {
    const report = await expireTable(iceberg.dir, { dryRun: true, retainLast: '1', olderThan: '0ms' });
    expect(report.dryRun).toBe(true);
    expect(maintenanceResult(report)).toMatchObject({
      schemaVersion: RESULT_SCHEMA_ID,
      command: 'expire',
      exitCode: 0,
      status: 'ok',
    });
    const e = await caught(rewriteTableManifests(paimon.dir, { dryRun: true }));
    expect(e.kind).toBe('InvalidArgument');
    expect(e.message).toMatch(/rewrite-manifests is Iceberg-only; .* is a Paimon table/);
  });

  it('the package root exports the app layer and compactPaimon', () => {
    for (const name of [
      'compactPaimon',
      'compactTable',
      'compactResult',
      'expireTable',
      'removeTableOrphans',
      'rewriteTableManifests',
      'expireTablePartitions',
      'inspectTable',
      'writeTableScan',
      'openIcebergForWrite',
      'openTableForRead',
      'detectTableFormat',
      'loadCurrentModel',
      'maintenanceResult',
      'runMaintenanceJob',
    ])
      expect(typeof (root as Record<string, unknown>)[name], name).toBe('function');
  });
});

describe('src/app loads a format only when a table of that format is opened', () => {
  const scratch = mkdtempSync(path.join(tmpdir(), 'floe-app-modules-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));
  const hook = path.join(scratch, 'log-modules.mjs');
  writeFileSync(
    hook,
    `import { register } from 'node:module';
const hook = \`import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data.file; }
export async function load(url, context, next) { if (url.startsWith('file:')) appendFileSync(file, url + '\\\\n'); return next(url, context); }\`;
register('data:text/javascript,' + encodeURIComponent(hook), { data: { file: process.env.FLOE_MODULE_LOG } });
`,
  );
  const modulesOf = async (args: string[], name: string): Promise<string[]> => {
    const log = path.join(scratch, `${name}.log`);
    const r = await spawnFloe(args, { nodeArgs: ['--import', hook], env: { FLOE_MODULE_LOG: log } });
    expect(r.code, r.stderr).toBe(0);
    return [...new Set(readFileSync(log, 'utf8').trim().split('\n'))].filter((u) => !u.includes('/node_modules/'));
  };

  it('compacting or inspecting an Iceberg table loads no Paimon module; a Paimon table loads them', async () => {
    const paimonModule = (u: string) => u.includes('/connectors/paimon/') || u.includes('/compact-paimon');
    const compactIce = await modulesOf(['compact', iceberg.dir, '--dry-run'], 'compact-iceberg');
    expect(compactIce.filter(paimonModule)).toEqual([]);
    expect(compactIce.some((u) => u.includes('/src/app/compact.ts'))).toBe(true);
    const inspectIce = await modulesOf(['inspect', iceberg.dir], 'inspect-iceberg');
    expect(inspectIce.filter(paimonModule)).toEqual([]);
    const inspectPaimon = await modulesOf(['inspect', paimon.dir], 'inspect-paimon');
    expect(inspectPaimon.some(paimonModule)).toBe(true);
  });
});
