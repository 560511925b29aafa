/**
 * "floe compact refuses no Paimon table that Java Paimon 1.3 creates with default options plus DVs or a
 * changelog producer": Java Paimon 1.3.1 creates each kind of table — append bucket-unaware, append
 * fixed-bucket, primary-key fixed-bucket, primary-key dynamic-bucket — plain, with
 * `deletion-vectors.enabled=true`, and (primary keys only: Java refuses a changelog producer on an append
 * table, and full-compaction together with DVs) `changelog-producer=input|lookup|full-compaction`, writes
 * a few commits with deletes (DVs on append tables through Paimon's DELETE path), and `floe compact --full`
 * must succeed. The expected rows are Java's: its read of an identical copy after its own full compaction
 * (level-0 files of a DV table are invisible until compacted), checked against a hand-kept model; Java reads
 * them from floe's result, and so does pypaimon.
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { javaPaimon, type PaimonTableSpec } from '../oracles/index.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';
import { Model, commits, lines, pypaimonLines, python } from '../paimon-compaction/model.js';
import { AppendModel, FIELDS } from './support.js';

type Kind = 'append-unaware' | 'append-fixed' | 'pk-fixed' | 'pk-dynamic';
const BUCKETS: Record<Kind, Record<string, string>> = {
  'append-unaware': {},
  'append-fixed': { bucket: '2', 'bucket-key': 'id' },
  'pk-fixed': { bucket: '2' },
  'pk-dynamic': { bucket: '-1' },
};
const VARIANTS: Record<string, Record<string, string>> = {
  plain: {},
  dv: { 'deletion-vectors.enabled': 'true' },
  input: { 'changelog-producer': 'input' },
  lookup: { 'changelog-producer': 'lookup' },
  'full-compaction': { 'changelog-producer': 'full-compaction' },
  // Java allows DVs with the none/input/lookup producers
  'dv+input': { 'deletion-vectors.enabled': 'true', 'changelog-producer': 'input' },
  'dv+lookup': { 'deletion-vectors.enabled': 'true', 'changelog-producer': 'lookup' },
};
interface Cell {
  name: string;
  kind: Kind;
  variant: string;
  options: Record<string, string>;
}
const CELLS: Cell[] = (Object.keys(BUCKETS) as Kind[]).flatMap((kind) =>
  Object.keys(VARIANTS)
    .filter((v) => kind.startsWith('pk') || v === 'plain' || v === 'dv')
    .map((variant) => ({
      name: `${kind}_${variant}`.replace(/[-+]/g, '_'),
      kind,
      variant,
      options: { ...BUCKETS[kind], ...VARIANTS[variant] },
    })),
);

describe('floe compact --full on every table Java Paimon 1.3 creates with default options (+ DVs / changelog producer)', async () => {
  const avail = await javaPaimon.available();
  if (!avail.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${avail.reason}`);
  const pyOk = existsSync(python) && spawnSync(python, ['-c', 'import pypaimon']).status === 0;
  if (!pyOk) console.warn('pypaimon unavailable: the pypaimon reads are left out');
  let warehouse = '';
  let twin = '';
  const models = new Map<string, { lines(): string[] }>();
  const read = async (wh: string, table: string) => lines(await javaPaimon.read(wh, { database: 'db', table }));

  beforeAll(async () => {
    if (!avail.ok) return;
    warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-matrix-'));
    const specs: PaimonTableSpec[] = [];
    for (const c of CELLS) {
      if (c.kind.startsWith('pk')) {
        const m = new Model('deduplicate');
        models.set(c.name, m);
        const s: PaimonTableSpec = {
          database: 'db',
          table: c.name,
          fields: FIELDS,
          primaryKeys: ['id', 'p'],
          partitionKeys: ['p'],
          options: c.options,
          commits: commits('deduplicate', 0, m, { batches: 3, perBatch: 30, keys: 40 }),
        };
        if (c.kind === 'pk-dynamic') await javaPaimon.writeDynamic(warehouse, s);
        else specs.push(s);
      } else {
        const m = new AppendModel();
        models.set(c.name, m);
        specs.push({
          database: 'db',
          table: c.name,
          fields: FIELDS,
          partitionKeys: ['p'],
          options: c.options,
          commits: [m.batch(0, 20), m.batch(100, 20), m.batch(200, 20)],
        });
      }
    }
    await javaPaimon.writeMany(warehouse, specs);
    for (const c of CELLS)
      if (c.kind.startsWith('append') && c.variant === 'dv') {
        const m = models.get(c.name) as AppendModel;
        await m.delete(warehouse, c.name, [1, 2, 103]);
        await m.delete(warehouse, c.name, [104, 205]);
      }
    twin = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-matrix-twin-'));
    cpSync(warehouse, twin, { recursive: true });
  });
  afterAll(() => {
    for (const d of [warehouse, twin]) if (d) rmSync(d, { recursive: true, force: true });
  });

  for (const c of CELLS) {
    it.skipIf(!avail.ok)(`${c.kind} ${c.variant} (${JSON.stringify(c.options)})`, async () => {
      const loc = path.join(warehouse, 'db.db', c.name);
      await javaPaimon.compact(twin, { database: 'db', table: c.name, full: true });
      const expected = await read(twin, c.name);
      expect(expected).toEqual(models.get(c.name)!.lines());

      const report = await compactPaimon(loc, { full: true });
      const text = renderPaimonPlan(report, true);
      expect(report.snapshotId, text).toBeDefined();
      expect(await read(warehouse, c.name), text).toEqual(expected);
      if (pyOk) expect(pypaimonLines(warehouse, c.name)).toEqual(expected);
    });
  }

  it.skipIf(!avail.ok)(
    'Java itself refuses a changelog producer on an append table, and full-compaction with DVs',
    async () => {
      for (const producer of ['input', 'lookup']) {
        await expect(
          javaPaimon.write(warehouse, {
            database: 'db',
            table: `append_${producer}`,
            fields: FIELDS,
            partitionKeys: ['p'],
            options: { 'changelog-producer': producer },
            commits: [],
          }),
        ).rejects.toThrow(/changelog-producer/);
      }
      await expect(
        javaPaimon.write(warehouse, {
          database: 'db',
          table: 'pk_dv_full_compaction',
          fields: FIELDS,
          primaryKeys: ['id', 'p'],
          partitionKeys: ['p'],
          options: { bucket: '2', 'deletion-vectors.enabled': 'true', 'changelog-producer': 'full-compaction' },
          commits: [],
        }),
      ).rejects.toThrow(/Deletion vectors mode is only supported for NONE\/INPUT\/LOOKUP/);
    },
  );
});
