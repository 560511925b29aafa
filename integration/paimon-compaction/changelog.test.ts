/**
 * Changelog producers. `changelog-producer=full-compaction` and `lookup`: Java Paimon 1.3 writes level-0
 * files (write-only); floe's compaction (full, resp. the ForceUpLevel0 picker) writes the changelog Java's
 * compaction writes for the same input (an identical copy of the table compacted by Java: the same changelog rows, in the same order per
 * key — +I for new keys, -U/+U for updated ones, -D for deleted ones), committed in the snapshot's
 * changelog manifest list. A streaming consumer (Java's StreamTableScan) that reads before floe's
 * compaction and resumes after it — and after Java's own compactions on top — sees every change exactly
 * once: applying its changelog strictly (no insert of a present key, no retract of an absent or different
 * row) gives the model's rows. `changelog-producer=input`: floe compacts without touching the changelog.
 */
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { javaPaimon } from '../oracles/index.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';
import { Model, commits, floeLines, lines, pypaimonLines, python, spec, type Engine } from './model.js';
import { apply, changelogByKey } from './changelog-support.js';

const FROM_START = { 'scan.mode': 'from-snapshot', 'scan.snapshot-id': '1' };
const ENGINES: Engine[] = ['deduplicate', 'partial-update'];

describe('Paimon changelog producers (Java Paimon oracle)', async () => {
  const avail = await javaPaimon.available();
  if (!avail.ok) console.warn(`SKIPPED: Java Paimon oracle unavailable: ${avail.reason}`);
  const pyOk = existsSync(python) && spawnSync(python, ['-c', 'import pypaimon']).status === 0;
  const dirs: string[] = [];
  const temp = (p: string) => {
    const d = mkdtempSync(path.join(os.tmpdir(), p));
    dirs.push(d);
    return d;
  };
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  const cases = [
    ...ENGINES.map((engine) => ({ producer: 'full-compaction', engine, full: true })),
    ...[...ENGINES, 'aggregation' as const, 'first-row' as const].map((engine) => ({
      producer: 'lookup',
      engine,
      full: false,
    })),
  ];
  for (const { producer, engine, full } of cases) {
    it.skipIf(!avail.ok)(
      `${producer}, ${engine}: floe writes Java's changelog; a streaming reader sees no gap or duplicate`,
      async () => {
        const warehouse = temp('floe-paimon-cl-');
        const table = engine.replace('-', '_');
        const loc = path.join(warehouse, 'db.db', table);
        const model = new Model(engine);
        await javaPaimon.write(
          warehouse,
          spec(engine, table, commits(engine, 0, model), true, { 'changelog-producer': producer }),
        );
        const consumer = await javaPaimon.stream(warehouse, { database: 'db', table, options: FROM_START });
        const state = new Map<string, string>();
        apply(state, consumer.rows);
        let next = consumer.next;

        for (const round of [1, 2]) {
          const twin = temp('floe-paimon-cl-twin-');
          cpSync(warehouse, twin, { recursive: true });
          // full-compaction: a full compaction (the changelog comes with the max level); lookup: the picker
          const report = await compactPaimon(loc, { full });
          expect(report.snapshotId, renderPaimonPlan(report, true)).toBeDefined();
          await javaPaimon.compact(twin, { database: 'db', table, full });
          const mine = await changelogByKey(loc);
          expect(mine.size).toBeGreaterThan(0);
          expect(mine).toEqual(await changelogByKey(path.join(twin, 'db.db', table)));
          const snap = (await openPaimonTable(loc)).snapshot!;
          expect(snap.changelogRecordCount).toBe(BigInt([...mine.values()].reduce((n, v) => n + v.length, 0)));
          const expected = model.lines();
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected);
          expect(await floeLines(loc)).toEqual(expected);
          if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected);
          // the consumer resumes after floe's compaction
          const r = await javaPaimon.stream(warehouse, { database: 'db', table, from: next });
          apply(state, r.rows);
          next = r.next;
          expect([...state.values()].sort()).toEqual(expected);
          // more writes (updates and deletes of the compacted keys) for the next round
          await javaPaimon.write(warehouse, spec(engine, table, commits(engine, round, model), false));
        }
        // Java's own compaction on top of floe's; the consumer keeps going
        await javaPaimon.compact(warehouse, { database: 'db', table, full });
        const r = await javaPaimon.stream(warehouse, { database: 'db', table, from: next });
        apply(state, r.rows);
        expect([...state.values()].sort()).toEqual(model.lines());
        // a fresh consumer from the first snapshot reads the same history
        const fresh = new Map<string, string>();
        apply(fresh, (await javaPaimon.stream(warehouse, { database: 'db', table, options: FROM_START })).rows);
        expect([...fresh.values()].sort()).toEqual(model.lines());
      },
    );
  }

  for (const engine of [...ENGINES, 'first-row' as const]) {
    it.skipIf(!avail.ok)(
      `lookup, ${engine}: level-0 keys looked up above the output level give Java's -U/+U; the consumer sees each change once`,
      async () => {
        // a big max-level layout (Java's compaction) and small level-0 batches: ForceUpLevel0 moves the
        // L0 runs alone into L4 and must look their keys up at L5 for the "before" rows
        const BIG = { batches: 3, perBatch: 300, keys: 400 };
        const SMALL = { batches: 1, perBatch: 12, keys: 400 };
        const warehouse = temp('floe-paimon-cl-lookup-');
        const table = engine.replace('-', '_');
        const loc = path.join(warehouse, 'db.db', table);
        const model = new Model(engine);
        await javaPaimon.write(
          warehouse,
          spec(engine, table, commits(engine, 0, model, BIG), true, { 'changelog-producer': 'lookup' }),
        );
        await javaPaimon.compact(warehouse, { database: 'db', table, full: false });
        const state = new Map<string, string>();
        const first = await javaPaimon.stream(warehouse, { database: 'db', table, options: FROM_START });
        apply(state, first.rows);
        expect([...state.values()].sort()).toEqual(model.lines());
        let next = first.next;
        for (const round of [1, 2]) {
          await javaPaimon.write(warehouse, spec(engine, table, commits(engine, round, model, SMALL), false));
          const twin = temp('floe-paimon-cl-lookup-twin-');
          cpSync(warehouse, twin, { recursive: true });
          const report = await compactPaimon(loc, {});
          const text = renderPaimonPlan(report, true);
          expect(report.snapshotId, text).toBeDefined();
          expect(
            report.buckets.some((b) => b.compact && b.outputLevel! < 5),
            text,
          ).toBe(true);
          await javaPaimon.compact(twin, { database: 'db', table, full: false });
          const mine = await changelogByKey(loc);
          // first-row: a key found above keeps its first row, so no changelog at all for it
          if (engine !== 'first-row')
            expect(
              [...mine.values()].flat().some((l) => l.startsWith('-U')),
              text,
            ).toBe(true);
          expect(mine).toEqual(await changelogByKey(path.join(twin, 'db.db', table)));
          const expected = model.lines();
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(expected);
          if (pyOk) expect(pypaimonLines(warehouse, table)).toEqual(expected);
          const r = await javaPaimon.stream(warehouse, { database: 'db', table, from: next });
          apply(state, r.rows);
          next = r.next;
          expect([...state.values()].sort()).toEqual(expected);
        }
      },
    );
  }

  it.skipIf(!avail.ok)('input: floe compacts without touching the changelog', async () => {
    const warehouse = temp('floe-paimon-cl-input-');
    const table = 't';
    const loc = path.join(warehouse, 'db.db', table);
    const model = new Model('deduplicate');
    await javaPaimon.write(
      warehouse,
      spec('deduplicate', table, commits('deduplicate', 0, model), true, { 'changelog-producer': 'input' }),
    );
    const changelogFiles = () =>
      readdirSync(loc, { recursive: true })
        .map(String)
        .filter((f) => path.basename(f).startsWith('changelog-'))
        .sort();
    const before = changelogFiles();
    expect(before.length).toBeGreaterThan(0);
    const consumer = await javaPaimon.stream(warehouse, { database: 'db', table, options: FROM_START });
    const state = new Map<string, string>();
    apply(state, consumer.rows, true);
    expect([...state.values()].sort()).toEqual(model.lines());
    const report = await compactPaimon(loc, { full: true });
    expect(report.snapshotId).toBeDefined();
    const snap = (await openPaimonTable(loc)).snapshot!;
    expect(snap.commitKind).toBe('COMPACT');
    expect(snap.changelogManifestList).toBeUndefined();
    expect(changelogFiles()).toEqual(before);
    expect(lines(await javaPaimon.read(warehouse, { database: 'db', table }))).toEqual(model.lines());
    // the consumer sees nothing new from a compaction
    const r = await javaPaimon.stream(warehouse, { database: 'db', table, from: consumer.next });
    expect(r.rows).toEqual([]);
    // Java keeps writing; the consumer sees exactly those changes
    await javaPaimon.write(warehouse, spec('deduplicate', table, commits('deduplicate', 1, model), false));
    apply(state, (await javaPaimon.stream(warehouse, { database: 'db', table, from: r.next })).rows, true);
    expect([...state.values()].sort()).toEqual(model.lines());
  });
});
