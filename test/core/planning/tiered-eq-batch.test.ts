/**
 * Batched equality→position conversion (issue 11.5): target-size segments that only equality deletes
 * send to eq-to-pos wait until the delete-to-data ratio or the minor interval says so, and batched
 * conversions are packed by the key-column bytes they read. Expected plans are worked out by hand from
 * the rule in src/core/planning/policy.ts (`eqToPosDeleteRatio`).
 */
import { describe, expect, it } from 'vitest';
import {
  TIERED_DEFAULTS,
  conversionReadBytes,
  planTiered,
  type TieredPolicy,
} from '../../../src/core/planning/tiered/index.js';
import { KiB, MiB, dataFile, eqDelete, makeTable, posDelete, snapshot } from './fixtures.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = 1_000 * HOUR;

function policy(p: Partial<TieredPolicy> = {}): TieredPolicy {
  return { ...TIERED_DEFAULTS, ...p };
}

/**
 * One 120 MiB segment (seq 1) and `n` equality deletes of 16 MiB each, committed `ageMs` before NOW
 * in snapshot 2. With openFileCost 0 the delete-to-data ratio is n × 16 / 120.
 */
function segmentWithEqDeletes(n: number, ageMs = MINUTE) {
  const seg = dataFile({ size: 120 * MiB, records: 1_000_000, seq: 1 });
  const eqs = Array.from({ length: n }, () => eqDelete({ seq: 2, size: 16 * MiB, snapshotId: 2n }));
  const table = makeTable({
    dataFiles: [seg],
    deleteFiles: eqs,
    snapshots: [
      snapshot({ snapshotId: 1n, sequenceNumber: 1, timestampMs: 0 }),
      snapshot({ snapshotId: 2n, parentSnapshotId: 1n, sequenceNumber: 2, timestampMs: NOW - ageMs }),
    ],
  });
  return { seg, eqs, table };
}

const kinds = (plan: ReturnType<typeof planTiered>) => plan.tasks.map((t) => t.kind);

describe('batched equality→position conversion', () => {
  const p = policy({ openFileCostBytes: 0, eqToPosDeleteRatio: 1.25 });

  it('waits below the delete-to-data ratio and converts at it', () => {
    // 9 × 16 = 144 MiB < 1.25 × 120 = 150 MiB: wait. 10 × 16 = 160 MiB ≥ 150: convert.
    const nine = segmentWithEqDeletes(9);
    const waiting = planTiered(nine.table, p, NOW);
    expect(waiting.tasks).toEqual([]);
    expect(waiting.removableDeletes).toEqual([]);
    const ten = segmentWithEqDeletes(10);
    const plan = planTiered(ten.table, p, NOW);
    expect(kinds(plan)).toEqual(['eq-to-pos']);
    expect(plan.tasks[0]!.inputs).toEqual([ten.seg]);
    expect(new Set(plan.removableDeletes)).toEqual(new Set(ten.eqs));
    expect(plan.tasks[0]!.trail.find((s) => s.gate === 'eq-to-pos-batch')?.outcome).toBe('pass');
  });

  it('the open cost counts toward the ratio: each attached delete costs a reader its size plus one open', () => {
    // With openFileCost 4 MiB: 8 × (16 + 4) = 160 MiB ≥ 150 converts, where 8 × 16 = 128 alone would not.
    const eight = segmentWithEqDeletes(8);
    expect(planTiered(eight.table, p, NOW).tasks).toEqual([]);
    expect(
      kinds(planTiered(eight.table, policy({ openFileCostBytes: 4 * MiB, eqToPosDeleteRatio: 1.25 }), NOW)),
    ).toEqual(['eq-to-pos']);
  });

  it('converts a small batch once its oldest delete is older than the minor interval', () => {
    const young = segmentWithEqDeletes(1, HOUR);
    expect(planTiered(young.table, p, NOW).tasks).toEqual([]);
    const old = segmentWithEqDeletes(1, HOUR + 1);
    expect(kinds(planTiered(old.table, p, NOW))).toEqual(['eq-to-pos']);
    // a switched-off interval leaves only the ratio
    expect(planTiered(old.table, policy({ openFileCostBytes: 0, minorTriggerIntervalMs: -1 }), NOW).tasks).toEqual([]);
  });

  it("a delete of unknown commit time counts as waited (Amoro's 0 default) once the partition is necessary", () => {
    const seg = dataFile({ size: 120 * MiB, records: 1000, seq: 1 });
    // two small files (> 1) and no recorded minor optimize: Amoro's minor interval rule fires; floe lets
    // the batch go because the deletes' age is unknown
    const table = makeTable({ dataFiles: [seg], deleteFiles: [eqDelete({ seq: 2 }), eqDelete({ seq: 2 })] });
    expect(kinds(planTiered(table, p, NOW))).toEqual(['eq-to-pos']);
    // one delete of unknown age alone does not make the partition necessary (nor does it for Amoro)
    const one = makeTable({ dataFiles: [seg], deleteFiles: [eqDelete({ seq: 2 })] });
    expect(planTiered(one, p, NOW).tasks).toEqual([]);
  });

  it("a negative ratio is Amoro's rule: equality deletes convert at every minor optimize", () => {
    const two = segmentWithEqDeletes(2);
    expect(planTiered(two.table, p, NOW).tasks).toEqual([]);
    expect(kinds(planTiered(two.table, policy({ eqToPosDeleteRatio: -1 }), NOW))).toEqual(['eq-to-pos']);
  });

  it('a segment with a position-delete reason of its own is not held back', () => {
    const { seg, eqs, table } = segmentWithEqDeletes(1);
    const twoPos = [
      posDelete({ seq: 2, records: 1, snapshotId: 2n }),
      posDelete({ seq: 2, records: 1, snapshotId: 2n }),
    ];
    const withPos = { ...table, deleteFiles: [...eqs, ...twoPos] };
    const plan = planTiered(withPos, p, NOW);
    expect(kinds(plan)).toEqual(['eq-to-pos']);
    expect(plan.tasks[0]!.inputs).toEqual([seg]);
  });

  it('fragments are still merged while the segments wait; the waiting segments keep their deletes', () => {
    const { seg, eqs, table } = segmentWithEqDeletes(1);
    const frags = Array.from({ length: 12 }, () => dataFile({ size: 1 * MiB, seq: 1 }));
    const plan = planTiered({ ...table, dataFiles: [seg, ...frags] }, p, NOW);
    expect(kinds(plan)).toEqual(['minor']);
    expect(plan.tasks[0]!.inputs).toHaveLength(12);
    // the equality delete is applied to the fragments but must stay for the segment
    expect(plan.tasks[0]!.deletes).toEqual(eqs);
    expect(plan.removableDeletes).toEqual([]);
    expect(plan.trail.some((s) => s.gate === 'eq-to-pos-batch' && s.outcome === 'skip')).toBe(true);
  });

  it('equality deletes only on waiting segments do not fire the minor file count', () => {
    // 12 equality deletes on one segment (ratio 12 × 16 / 120 = 1.6 would convert), vs 12 tiny ones (ratio
    // 12 × 4 KiB / 120 MiB ≈ 0): the tiny ones are neither a batch nor small files of their own.
    const seg = dataFile({ size: 120 * MiB, records: 1000, seq: 1 });
    const tiny = Array.from({ length: 12 }, () => eqDelete({ seq: 2, size: 4 * KiB, snapshotId: 2n }));
    const table = makeTable({
      dataFiles: [seg],
      deleteFiles: tiny,
      snapshots: [
        snapshot({ snapshotId: 1n, timestampMs: 0 }),
        snapshot({ snapshotId: 2n, sequenceNumber: 2, timestampMs: NOW - MINUTE }),
      ],
    });
    const plan = planTiered(table, p, NOW);
    expect(plan.tasks).toEqual([]);
    expect(plan.trail.find((s) => s.gate === 'partitions')!.values).toMatchObject({ necessary: 0 });
    // Amoro counts them (fragments + equality deletes ≥ 12) and converts
    expect(kinds(planTiered(table, policy({ eqToPosDeleteRatio: -1 }), NOW))).toEqual(['eq-to-pos']);
  });

  it("batched conversions are packed by the key-column bytes they read, Amoro's by file size", () => {
    // 20 segments of 120 MiB whose key column (field 1) is 2 MiB: 40 MiB of key bytes fit one task;
    // packed by file size every 120 MiB segment fills its own 128 MiB bin.
    const segs = Array.from({ length: 20 }, () =>
      dataFile({
        size: 120 * MiB,
        records: 1000,
        seq: 1,
        stats: {
          columnSizes: new Map([
            [1, BigInt(2 * MiB)],
            [2, BigInt(118 * MiB)],
          ]),
        },
      }),
    );
    const eqs = [eqDelete({ seq: 2, size: 4 * KiB }), eqDelete({ seq: 2, size: 4 * KiB })];
    const table = makeTable({ dataFiles: segs, deleteFiles: eqs });
    const batched = planTiered(table, p, NOW);
    expect(batched.tasks.map((t) => t.inputs.length)).toEqual([20]);
    expect(batched.tasks[0]!.trail.find((s) => s.gate === 'bin')!.values).toMatchObject({ readBytes: 40 * MiB });
    const amoro = planTiered(table, policy({ eqToPosDeleteRatio: -1 }), NOW);
    expect(amoro.tasks.map((t) => t.inputs.length)).toEqual(Array.from({ length: 20 }, () => 1));
  });

  it('full mode converts regardless of the batch', () => {
    const one = segmentWithEqDeletes(1);
    const plan = planTiered(one.table, policy({ openFileCostBytes: 0, fullTriggerIntervalMs: HOUR }), NOW);
    expect(kinds(plan)).toEqual(['full']);
  });

  it('stays a pure function: the same inputs give the same plan and the table is not touched', () => {
    const ten = segmentWithEqDeletes(10);
    const before = structuredClone(ten.table);
    const a = planTiered(ten.table, p, NOW);
    const b = planTiered(ten.table, p, NOW);
    expect(b).toEqual(a);
    expect(ten.table).toEqual(before);
  });
});

describe('conversionReadBytes', () => {
  const eq = eqDelete({ equalityFieldIds: [1, 3] });

  it("sums the key columns from the manifest's column sizes", () => {
    const f = dataFile({
      size: 100 * MiB,
      stats: {
        columnSizes: new Map([
          [1, 3n * BigInt(MiB)],
          [2, 90n * BigInt(MiB)],
          [3, 1n * BigInt(MiB)],
        ]),
      },
    });
    expect(conversionReadBytes(f, [eq])).toBe(4 * MiB);
  });

  it('falls back to a tenth of the file without (complete) column sizes', () => {
    expect(conversionReadBytes(dataFile({ size: 100 * MiB }), [eq])).toBe(10 * MiB);
    const partial = dataFile({ size: 100 * MiB, stats: { columnSizes: new Map([[1, 3n * BigInt(MiB)]]) } });
    expect(conversionReadBytes(partial, [eq])).toBe(10 * MiB);
  });
});
