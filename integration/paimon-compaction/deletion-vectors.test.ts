/**
 * Deletion-vector tables (`deletion-vectors.enabled=true`): Java Paimon 1.3 writes level-0 files
 * (write-only) over a layout its own full compaction put at the max level; floe compacts the way a DV
 * writer does (ForceUpLevel0 lookup compaction in RADICAL mode): level-0 keys found above the output
 * level have their old rows marked in the bucket's DV, the bucket's DV index file is replaced in the same
 * COMPACT snapshot. The oracle: Java's own compaction of an identical copy of the table picks the same
 * units and marks exactly the same row positions in the same files; Java, pypaimon and floe read the
 * rows of a hand-kept model (no duplicate, no resurrected row after updates and deletes); Java keeps
 * writing and compacting on top; nothing the base snapshot referenced is deleted.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { javaPaimon } from '../oracles/index.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { readDeletionVector } from '../../connectors/paimon/deletion-vector.js';
import type { PaimonTable } from '../../connectors/paimon/table.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';
import { readAvroContainer } from '../../connectors/formats/avro.js';
import { INDEX_MANIFEST_ENTRY_SCHEMA } from '../../connectors/paimon/write-index-manifest.js';
import { changelogByKey } from './changelog-support.js';
import { Model, commits, floeLines, lines, pypaimonLines, python, spec, type Engine } from './model.js';

const DV = { 'deletion-vectors.enabled': 'true' };
/** Tables: each merge engine with DVs, plus DVs with changelog-producer=lookup (changelog compared with Java's too). */
const CASES: { engine: Engine; table: string; options: Record<string, string> }[] = [
  { engine: 'deduplicate', table: 'deduplicate', options: DV },
  { engine: 'partial-update', table: 'partial_update', options: DV },
  { engine: 'aggregation', table: 'aggregation', options: DV },
  { engine: 'deduplicate', table: 'dedupe_lookup', options: { ...DV, 'changelog-producer': 'lookup' } },
];
// A large max-level layout and small level-0 batches: ForceUpLevel0 then compacts the L0 runs alone into
// L4 and must look their keys up at L5 (a big L5 fails the size-ratio test that would pull it in).
const BIG = { batches: 3, perBatch: 300, keys: 400 };
const SMALL = { batches: 1, perBatch: 12, keys: 400 };

/** Deleted positions per data file (`bucket|file` → sorted positions), read with floe's DV reader. */
async function dvsOf(t: PaimonTable): Promise<Map<string, number[]>> {
  const out = new Map<string, number[]>();
  for (const f of t.files) {
    if (!f.dv) continue;
    const bytes = await t.io.read(f.dv.indexFile);
    out.set(
      `${f.partition[0]}|${f.bucket}|${f.meta.fileName}`,
      readDeletionVector(bytes, f.dv.offset, f.dv.length, f.dv.indexFile),
    );
  }
  return out;
}

/** Levels per bucket: `partition|bucket` → sorted "L<level>" multiset, and the names of the files kept from before. */
function layout(t: PaimonTable, before: PaimonTable): Map<string, string> {
  const old = new Set(before.files.map((f) => f.meta.fileName));
  const m = new Map<string, string[]>();
  for (const f of t.files) {
    const k = `${f.partition[0]}|${f.bucket}`;
    (m.get(k) ?? m.set(k, []).get(k)!).push(
      old.has(f.meta.fileName) ? `L${f.meta.level}:${f.meta.fileName}` : `L${f.meta.level}:new`,
    );
  }
  return new Map([...m].map(([k, v]) => [k, v.sort().join(' ')]));
}

const allFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => path.join(d.parentPath, d.name));

describe('Paimon deletion-vector compaction interop (Java Paimon oracle)', async () => {
  const avail = await javaPaimon.available();
  if (!avail.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${avail.reason}`);
  const pyOk = existsSync(python) && spawnSync(python, ['-c', 'import pypaimon']).status === 0;
  let warehouse = '';
  let twin = '';
  const models = new Map<string, Model>();

  beforeAll(async () => {
    if (!avail.ok) return;
    warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-dv-'));
    const specs = CASES.map((c) => {
      const m = new Model(c.engine);
      models.set(c.table, m);
      return spec(c.engine, c.table, commits(c.engine, 0, m, BIG), true, c.options);
    });
    await javaPaimon.writeMany(warehouse, specs);
    for (const c of CASES) await javaPaimon.compact(warehouse, { database: 'db', table: c.table, full: true });
    // fresh level-0 files over the max-level layout: updates and deletes of keys that live at L5
    await javaPaimon.writeMany(
      warehouse,
      CASES.map((c) => spec(c.engine, c.table, commits(c.engine, 1, models.get(c.table)!, SMALL), false)),
    );
    twin = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-dv-twin-'));
    cpSync(warehouse, twin, { recursive: true });
  });
  afterAll(() => {
    for (const d of [warehouse, twin]) if (d) rmSync(d, { recursive: true, force: true });
  });

  for (const { engine, table, options } of CASES) {
    it.skipIf(!avail.ok)(
      `${table} (${engine}): floe's lookup compaction marks the rows Java marks; Java${pyOk ? ', pypaimon' : ''} and floe read the model; Java keeps going`,
      async () => {
        const loc = path.join(warehouse, 'db.db', table);
        const twinLoc = path.join(twin, 'db.db', table);
        const model = models.get(table)!;
        const expected = model.lines();
        const before = await openPaimonTable(loc);
        expect(before.files.some((f) => f.meta.level === 0)).toBe(true);
        expect(before.files.some((f) => f.meta.level === 5)).toBe(true);
        const filesBefore = allFiles(loc);

        const report = await compactPaimon(loc, {});
        const text = renderPaimonPlan(report, true);
        expect(report.snapshotId, text).toBeDefined();
        await javaPaimon.compact(twin, { database: 'db', table, full: false });

        const mine = await openPaimonTable(loc);
        const java = await openPaimonTable(twinLoc);
        expect(mine.snapshot!.commitKind).toBe('COMPACT');
        // same units: the same old files kept at the same levels, new files at the same levels
        expect(layout(mine, before), text).toEqual(layout(java, before));
        expect(mine.files.some((f) => f.meta.level === 0)).toBe(false);
        // the same rows marked deleted, in the same (old) files
        const myDvs = await dvsOf(mine);
        expect(myDvs.size, text).toBeGreaterThan(0);
        const javaDvs = new Map(
          [...(await dvsOf(java))].filter(([k]) => before.files.some((f) => k.endsWith(`|${f.meta.fileName}`))),
        );
        const myOld = new Map([...myDvs].filter(([k]) => before.files.some((f) => k.endsWith(`|${f.meta.fileName}`))));
        expect(myOld).toEqual(javaDvs);
        if (options['changelog-producer'] === 'lookup') {
          const cl = await changelogByKey(loc);
          expect(
            [...cl.values()].flat().some((l) => l.startsWith('-U') || l.startsWith('-D')),
            text,
          ).toBe(true);
          expect(cl).toEqual(await changelogByKey(twinLoc));
        }
        // floe's index manifest carries the schema text Java 1.4 writes
        const header = async (t: PaimonTable) =>
          readAvroContainer(
            await t.io.read(path.join(t.location, 'manifest', t.snapshot!.indexManifest!)),
            'index manifest',
          ).schemaText;
        expect(await header(mine)).toBe(INDEX_MANIFEST_ENTRY_SCHEMA);
        expect(await header(java)).toBe(INDEX_MANIFEST_ENTRY_SCHEMA);
        // one DV index entry per touched bucket, and each range's cardinality is right
        for (const e of mine.indexEntries.filter((x) => x.indexType === 'DELETION_VECTORS'))
          for (const r of e.dvRanges ?? []) expect(r.cardinality).toBeDefined();

        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected);
        expect(lines(await javaPaimon.read(twin, { database: 'db', table }))).toEqual(expected);
        expect(await floeLines(loc)).toEqual(expected);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected);
        // nothing the base snapshot referenced was deleted
        const now = new Set(allFiles(loc));
        for (const f of filesBefore) expect(now.has(f), f).toBe(true);

        // Java writes more level-0 files; floe compacts again (lookup against its own and Java's DVs)
        await javaPaimon.write(warehouse, spec(engine, table, commits(engine, 2, model, SMALL), false));
        const again = await compactPaimon(loc, {});
        expect(again.snapshotId, renderPaimonPlan(again, true)).toBeDefined();
        const expected2 = model.lines();
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected2);
        expect(await floeLines(loc)).toEqual(expected2);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected2);

        // Java keeps writing and compacting (its lookup compaction over floe's DVs), then a floe full compaction
        await javaPaimon.write(warehouse, spec(engine, table, commits(engine, 3, model, SMALL), false));
        await javaPaimon.compact(warehouse, { database: 'db', table, full: false });
        const expected3 = model.lines();
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected3);
        expect(await floeLines(loc)).toEqual(expected3);
        const full = await compactPaimon(loc, { full: true });
        expect(full.snapshotId).toBeDefined();
        const final = await openPaimonTable(loc);
        expect(final.files.every((f) => f.meta.level === 5)).toBe(true);
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected3);
        if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected3);
        await javaPaimon.compact(warehouse, { database: 'db', table, full: true });
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected3);
      },
    );
  }
});
