/**
 * Property: for random histories (appends, deletes, compactions, branches, tags, statistics) and random
 * expiry settings, `expire` never deletes a file any retained snapshot or ref can reach, and deletes
 * everything only expired snapshots reached (store contents == reachable set + metadata JSON + hint).
 * Reachability is recomputed independently by walking the metadata with the reader.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { History, TABLE, reachableFiles } from './history.js';
import { expireSnapshots } from '../../connectors/iceberg/expire.js';
import type { MaintainedTable } from '../../connectors/iceberg/expire-table.js';
import { removeOrphanFiles } from '../../connectors/iceberg/orphans.js';

type Op =
  | { kind: 'append'; branch: number; add: number; stats: boolean; step: number }
  | { kind: 'delete' | 'replace'; branch: number; remove: number[]; step: number }
  | { kind: 'branch' | 'tag'; from: number; maxRefAgeMs?: number; minKeep?: number }
  | { kind: 'expire'; olderThanBack: number; retainLast?: number; explicit: number };

const BRANCHES = ['main', 'b1', 'b2'];
const step = fc.integer({ min: 1, max: 4 }).map((n) => n * 3_600_000);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('append' as const),
      branch: fc.nat(2),
      add: fc.integer({ min: 1, max: 3 }),
      stats: fc.boolean(),
      step,
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('delete' as const, 'replace' as const),
      branch: fc.nat(2),
      remove: fc.array(fc.nat(20), { minLength: 1, maxLength: 3 }),
      step,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constantFrom('branch' as const, 'tag' as const),
        from: fc.nat(50),
        maxRefAgeMs: fc.integer({ min: 1, max: 30 }).map((h) => h * 3_600_000),
        minKeep: fc.integer({ min: 1, max: 3 }),
      },
      { requiredKeys: ['kind', 'from'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('expire' as const),
        olderThanBack: fc.integer({ min: 0, max: 40 }).map((h) => h * 3_600_000),
        retainLast: fc.integer({ min: 1, max: 3 }),
        explicit: fc.nat(60),
      },
      { requiredKeys: ['kind', 'olderThanBack', 'explicit'] },
    ),
  },
);

function table(h: History, md: Awaited<ReturnType<History['metadata']>>): MaintainedTable {
  return { io: h.io, tableLocation: TABLE, metadataLocation: md.location, metadata: md.md, ops: h.ops };
}

/** Metadata JSON files and the hint are never deleted by expire; everything else must be reachable. */
const isMetadataJson = (l: string) => /\.metadata\.json$|version-hint\.text$/.test(l);

async function checkExpire(h: History, op: Extract<Op, { kind: 'expire' }>): Promise<void> {
  const before = await h.metadata();
  const reachableBefore = await reachableFiles(h.io, before.metadata, before.location);
  const filesBefore = await h.allFiles();
  const heads = new Set(before.md.refs.map((r) => r.snapshotId));
  const nonHeads = before.md.snapshots.filter((s) => !heads.has(s.snapshotId));
  const explicit =
    nonHeads.length > 0 && op.explicit % 3 === 0 ? [nonHeads[op.explicit % nonHeads.length]!.snapshotId] : [];
  const nowMs = h.now + 3_600_000;
  const report = await expireSnapshots(table(h, before), {
    nowMs,
    olderThanMs: nowMs - op.olderThanBack,
    ...(op.retainLast !== undefined ? { retainLast: op.retainLast } : {}),
    snapshotIds: explicit,
  });
  expect(report.failed).toEqual([]);
  const after = await h.metadata();
  const reachableAfter = await reachableFiles(h.io, after.metadata, after.location);
  const filesAfter = await h.allFiles();
  const deleted = [...filesBefore].filter((f) => !filesAfter.has(f));
  // safety: nothing reachable from the retained metadata was deleted, and every reachable file exists
  for (const f of deleted) expect(reachableAfter.has(f), `deleted reachable file ${f}`).toBe(false);
  for (const f of reachableAfter) expect(filesAfter.has(f), `reachable file missing ${f}`).toBe(true);
  // completeness: what remains is exactly the reachable set plus metadata JSON
  const leftovers = [...filesAfter].filter((f) => !reachableAfter.has(f) && !isMetadataJson(f));
  expect(leftovers).toEqual([]);
  // and only files that were reachable before were touched
  for (const f of deleted) expect(reachableBefore.has(f)).toBe(true);
  // the report lists exactly what was deleted
  expect(new Set(report.deleted.map((l) => h.io.map(l)))).toEqual(new Set(deleted));
  // explicit ids are gone; main is intact
  for (const id of explicit) expect(after.md.snapshots.some((s) => s.snapshotId === id)).toBe(false);
  expect(after.md.currentSnapshotId).toBe(before.md.currentSnapshotId);
}

async function run(ops: Op[]): Promise<void> {
  const h = await History.create();
  const created: bigint[] = [];
  for (const op of ops) {
    if (op.kind === 'append' || op.kind === 'delete' || op.kind === 'replace') {
      const branch = BRANCHES[op.branch]!;
      if (branch !== 'main' && (await h.headOf(branch)) === undefined) continue; // branches are created from snapshots
      const id =
        op.kind === 'append'
          ? await h.commit(branch, 'append', { add: op.add, stats: op.stats, timeStep: op.step })
          : await h.commit(branch, op.kind, { remove: op.remove, add: 1, timeStep: op.step });
      if (id !== undefined) created.push(id);
    } else if (op.kind === 'branch' || op.kind === 'tag') {
      const { md } = await h.metadata();
      const live = md.snapshots.map((s) => s.snapshotId);
      if (live.length === 0) continue;
      const target = live[op.from % live.length]!;
      const name = op.kind === 'tag' ? `tag${op.from % 3}` : BRANCHES[1 + (op.from % 2)]!;
      if (md.refs.some((r) => r.name === name && r.type !== op.kind)) continue;
      await h.setRef(name, op.kind, target, {
        ...(op.maxRefAgeMs !== undefined ? { maxRefAgeMs: op.maxRefAgeMs } : {}),
        ...(op.minKeep !== undefined ? { minSnapshotsToKeep: op.minKeep } : {}),
      });
    } else {
      await checkExpire(h, op as Extract<Op, { kind: 'expire' }>);
    }
  }
  await checkExpire(h, { kind: 'expire', olderThanBack: 0, retainLast: 1, explicit: 1 });
}

describe('expire: property-based safety over random histories', () => {
  it('never deletes a reachable file and leaves no unreachable one behind', async () => {
    await fc.assert(fc.asyncProperty(fc.array(opArb, { minLength: 3, maxLength: 18 }), run), { numRuns: 40 });
  }, 120_000);

  it('remove-orphans after random histories deletes exactly the planted orphans', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(opArb, { minLength: 3, maxLength: 12 }),
        fc.array(fc.constantFrom('data', 'metadata', 'data/part=1'), { maxLength: 4 }),
        async (ops, plants) => {
          const h = await History.create();
          for (const op of ops) {
            if (op.kind === 'append') await h.commit('main', 'append', { add: op.add, stats: op.stats });
            else if (op.kind === 'delete' || op.kind === 'replace')
              await h.commit('main', op.kind, { remove: op.remove });
            else if (op.kind === 'tag' || op.kind === 'branch') {
              const head = await h.headOf('main');
              if (head !== undefined) await h.setRef(`${op.kind}-x`, op.kind, head);
            }
          }
          const planted = new Set<string>();
          for (const [i, dir] of plants.entries()) {
            const loc = `${TABLE}/${dir}/orphan-${i}.bin`;
            await h.io.overwrite(loc, Buffer.from('x'));
            planted.add(h.io.map(loc));
          }
          const md = await h.metadata();
          const before = await h.allFiles();
          const report = await removeOrphanFiles(table(h, md), { nowMs: Date.now() + 10 * 86_400_000 });
          const after = await h.allFiles();
          const deleted = new Set([...before].filter((f) => !after.has(f)));
          expect(deleted).toEqual(planted);
          expect(new Set(report.candidates.map((c) => c.location))).toEqual(planted);
        },
      ),
      { numRuns: 20 },
    );
  }, 120_000);
});
