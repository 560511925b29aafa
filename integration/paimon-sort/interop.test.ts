/**
 * Paimon sort compaction interop (issue 15.4). Java Paimon 1.3.1 (the oracle) appends random rows to a
 * bucket-unaware append table in many commits, so every file spans the whole key range; floe's sort
 * compaction (`order` / `zorder` / `hilbert`) rewrites each partition into target-size files and
 * overwrites the partitions. Then:
 * - Java Paimon, pypaimon and floe read the same multiset of rows as a model kept here;
 * - the snapshot is an OVERWRITE;
 * - the files' real bounds (computed by pyarrow from the rows, not from stats) show the order: for
 *   `order` the files' [min, max] of the key do not overlap; for zorder / hilbert far fewer files
 *   intersect a small range predicate on both columns than before;
 * - Java keeps appending on top and runs its own compaction (AppendCompactCoordinator, over floe's files
 *   too), floe sorts again, and the rows still match;
 * - a Java append that lands in a partition while floe commits makes floe abandon the commit (an
 *   overwrite would drop that row) and remove its files; the row is kept.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalLine, canonicalRow, javaPaimon, repoRoot, type PaimonChange } from '../oracles/index.js';
import { openPaimonTable, scanPaimon } from '../../connectors/paimon/index.js';
import type { PaimonSortRequest } from '../../src/orchestration/paimon-compact/sort-compact.js';
import { compactPaimon, renderPaimonPlan } from '../../src/orchestration/compact-paimon.js';

const TYPES = { id: 'int', p: 'string', x: 'int', y: 'int', s: 'string', n: 'long' };
type Row = { id: number; p: string; x: number; y: number; s: string | null; n: number | null };

const python = path.join(repoRoot, '.venv/bin/python');
const pyRead = path.join(repoRoot, 'integration/paimon-compaction/pypaimon_read.py');
const pyBounds = path.join(repoRoot, 'integration/paimon-sort/file_bounds.py');

const line = (r: Row) => canonicalLine(canonicalRow(TYPES, r as unknown as Record<string, unknown>));

/** `commits` batches of `per` random rows over partitions a and b, ids from `firstId`. */
function batches(seed0: number, firstId: number, commits: number, per: number, model: string[]): PaimonChange[][] {
  let seed = seed0;
  const rnd = (n: number) => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 8) % n;
  let id = firstId;
  return Array.from({ length: commits }, () =>
    Array.from({ length: per }, () => {
      const row: Row = {
        id: id++,
        p: rnd(2) ? 'a' : 'b',
        x: rnd(1000),
        y: rnd(1000),
        s: rnd(9) ? `s${rnd(40)}` : null,
        n: rnd(7) ? rnd(100000) : null,
      };
      model.push(line(row));
      return { row } as unknown as PaimonChange;
    }),
  );
}

const FIELDS = [
  { name: 'id', type: 'int' },
  { name: 'p', type: 'string' },
  { name: 'x', type: 'int' },
  { name: 'y', type: 'int' },
  { name: 's', type: 'string' },
  { name: 'n', type: 'long' },
];

async function floeLines(loc: string): Promise<string[]> {
  const out: string[] = [];
  for await (const r of scanPaimon(loc)) out.push(canonicalLine(canonicalRow(TYPES, r)));
  return out.sort();
}

function pypaimonLines(warehouse: string): string[] {
  const r = spawnSync(python, [pyRead, warehouse, 'db.t'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`pypaimon read failed: ${r.stderr.slice(-2000)}`);
  return r.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => canonicalLine(canonicalRow(TYPES, JSON.parse(l))))
    .sort();
}

interface Bounds {
  file: string;
  rows: number;
  min: { x: number; y: number };
  max: { x: number; y: number };
}

/** The live files' real x/y bounds, by partition (pyarrow over the Parquet rows). */
async function bounds(loc: string): Promise<Map<string, Bounds[]>> {
  const t = await openPaimonTable(loc);
  const r = spawnSync(python, [pyBounds, 'x,y', ...t.files.map((f) => f.path)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`file_bounds.py failed: ${r.stderr.slice(-2000)}`);
  const byFile = new Map(
    r.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Bounds)
      .map((b) => [b.file, b]),
  );
  const out = new Map<string, Bounds[]>();
  for (const f of t.files) {
    const k = String(f.partition[0]);
    (out.get(k) ?? out.set(k, []).get(k)!).push(byFile.get(f.path)!);
  }
  return out;
}

/** Files whose x/y bounding box meets the predicate x < 150 AND y < 150 (what min/max pruning keeps). */
const touching = (bs: Map<string, Bounds[]>) =>
  [...bs.values()].flat().filter((b) => b.min.x < 150 && b.min.y < 150).length;
const fileCount = (bs: Map<string, Bounds[]>) => [...bs.values()].flat().length;

const lines = (rows: Record<string, unknown>[]) => rows.map((r) => canonicalLine(canonicalRow(TYPES, r))).sort();

describe('Paimon sort compaction interop (Java Paimon 1.3 oracle, pypaimon)', async () => {
  const avail = await javaPaimon.available();
  const cases: [string, PaimonSortRequest][] = [
    ['order', { strategy: 'sort', sortOrder: 'x' }],
    ['zorder', { strategy: 'zorder', columns: ['x', 'y'] }],
    ['hilbert', { strategy: 'hilbert', columns: ['x', 'y'] }],
  ];
  for (const [name, sort] of cases) {
    it.skipIf(!avail.ok)(
      `${name}: Java, pypaimon and floe read the same rows; files ordered by the key; Java appends on top`,
      async () => {
        const warehouse = mkdtempSync(path.join(os.tmpdir(), `floe-paimon-sort-${name}-`));
        try {
          const model: string[] = [];
          await javaPaimon.write(warehouse, {
            database: 'db',
            table: 't',
            fields: FIELDS,
            partitionKeys: ['p'],
            options: { bucket: '-1' },
            commits: batches(name.length * 31, 0, 10, 60, model),
          });
          const loc = path.join(warehouse, 'db.db', 't');
          const before = await bounds(loc);
          const t0 = await openPaimonTable(loc);
          const bytes = t0.files.reduce((n, f) => n + Number(f.meta.fileSize), 0);
          // about four files per partition
          const target = String(Math.ceil(bytes / 8));
          const report = await compactPaimon(loc, { sort, options: { 'target-file-size': target } });
          const text = renderPaimonPlan(report, true);
          expect(report.snapshotId, text).toBeDefined();
          const snap = JSON.parse(readFileSync(path.join(loc, 'snapshot', `snapshot-${report.snapshotId}`), 'utf8'));
          expect(snap.commitKind).toBe('OVERWRITE');
          const expected = [...model].sort();
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual(expected);
          expect(pypaimonLines(warehouse)).toEqual(expected);
          expect(await floeLines(loc)).toEqual(expected);

          const after = await bounds(loc);
          for (const [p, files] of after) {
            expect(files.length, `${text}\npartition ${p}`).toBeGreaterThan(1);
            expect(files.reduce((n, b) => n + b.rows, 0)).toBe(model.filter((l) => l.includes(`"p":"${p}"`)).length);
          }
          const overlaps = (bs: Bounds[]) => {
            const s = [...bs].sort((a, b) => a.min.x - b.min.x);
            return s.slice(1).filter((b, i) => b.min.x < s[i]!.max.x).length;
          };
          if (name === 'order') {
            // before: Java's random appends overlap everywhere; after: ranges meet at most at a shared value
            expect([...before.values()].every((bs) => overlaps(bs) > 0)).toBe(true);
            for (const bs of after.values()) expect(overlaps(bs), JSON.stringify(bs)).toBe(0);
          } else {
            const b = touching(before);
            const a = touching(after);
            console.log(
              `[paimon-sort] ${name}: files meeting x<150 AND y<150: before ${b}/${fileCount(before)}, after ${a}/${fileCount(after)}`,
            );
            expect(b).toBe(fileCount(before));
            expect(a * 2).toBeLessThanOrEqual(fileCount(after));
          }

          // Java keeps appending on top and compacts (AppendCompactCoordinator, floe's files included); floe sorts again
          await javaPaimon.write(warehouse, { database: 'db', table: 't', commits: batches(7, 10_000, 6, 10, model) });
          const expected2 = [...model].sort();
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual(expected2);
          const filesBeforeJava = (await openPaimonTable(loc)).files.length;
          await javaPaimon.compact(warehouse, { database: 'db', table: 't' });
          const afterJava = await openPaimonTable(loc);
          expect(afterJava.snapshot!.commitKind).toBe('COMPACT');
          expect(afterJava.files.length).toBeLessThan(filesBeforeJava);
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual(expected2);
          expect(pypaimonLines(warehouse)).toEqual(expected2);
          const again = await compactPaimon(loc, { sort, options: { 'target-file-size': target } });
          expect(again.snapshotId).toBeDefined();
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual(expected2);
          expect(pypaimonLines(warehouse)).toEqual(expected2);
          expect(await floeLines(loc)).toEqual(expected2);
          await javaPaimon.write(warehouse, { database: 'db', table: 't', commits: batches(9, 20_000, 1, 10, model) });
          expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual([...model].sort());
        } finally {
          rmSync(warehouse, { recursive: true, force: true });
        }
      },
    );
  }

  it.skipIf(!avail.ok)(
    'a Java append landing while floe commits: the overwrite is abandoned, floe removes its files, no row is lost',
    async () => {
      const warehouse = mkdtempSync(path.join(os.tmpdir(), 'floe-paimon-sort-race-'));
      try {
        const model: string[] = [];
        await javaPaimon.write(warehouse, {
          database: 'db',
          table: 't',
          fields: FIELDS,
          partitionKeys: ['p'],
          options: { bucket: '-1' },
          commits: batches(5, 0, 4, 30, model),
        });
        const loc = path.join(warehouse, 'db.db', 't');
        const dataFiles = () =>
          ['p=a', 'p=b'].flatMap((d) => readdirSync(path.join(loc, d, 'bucket-0')).map((f) => `${d}/${f}`)).sort();
        let raced = false;
        let beforeRace: string[] = [];
        const initial = dataFiles();
        const run = compactPaimon(loc, {
          sort: { strategy: 'zorder', columns: ['x', 'y'] },
          beforePublish: async () => {
            if (raced) return;
            raced = true;
            beforeRace = dataFiles();
            await javaPaimon.write(warehouse, { database: 'db', table: 't', commits: batches(77, 5000, 1, 6, model) });
          },
        });
        await expect(run).rejects.toThrow(/added to a partition this sort compaction rewrites/);
        const expected = [...model].sort();
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual(expected);
        // floe had written its sorted files when Java raced in; after the abandon only live files remain
        const t = await openPaimonTable(loc);
        const live = t.files.map((f) => `p=${String(f.partition[0])}/${f.meta.fileName}`).sort();
        expect(beforeRace.filter((f) => !initial.includes(f)).length).toBeGreaterThan(0);
        expect(dataFiles()).toEqual(live);
        expect(initial.every((f) => live.includes(f))).toBe(true);
        // and a re-run commits
        const retry = await compactPaimon(loc, { sort: { strategy: 'zorder', columns: ['x', 'y'] } });
        expect(retry.snapshotId).toBeDefined();
        expect(lines(await javaPaimon.read(warehouse, { database: 'db', table: 't' }))).toEqual(expected);
      } finally {
        rmSync(warehouse, { recursive: true, force: true });
      }
    },
  );
});
