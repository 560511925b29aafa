import { describe, expect, it } from 'vitest';
import {
  binpackOptionsFrom,
  expectedOutputFiles,
  planBinpack,
  writeMaxFileSize,
  type BinpackOptions,
} from '../../../src/core/planning/binpack/index.js';
import { firstFitPack, sequentialPack } from '../../../src/core/planning/binpack/packing.js';
import { isFloeError } from '../../../util/errors.js';
import {
  GiB,
  MiB,
  dataFile,
  eqDelete,
  identitySpec,
  makeTable,
  paths,
  posDelete,
  unpartitionedSpec,
} from './fixtures.js';

const NOW = 1_700_000_000_000;

/** Options with a 100 MiB target: min 75 MiB, max 180 MiB. */
function opts(extra: Record<string, string> = {}): BinpackOptions {
  return binpackOptionsFrom({ 'target-file-size-bytes': String(100 * MiB), ...extra });
}

describe('bin-pack options (Spark rewrite_data_files defaults)', () => {
  it('defaults: 512 MiB target, 75 % / 180 %, 5 input files, no delete-file threshold, 0.3 ratio, 100 GiB groups', () => {
    const o = binpackOptionsFrom({});
    expect(o.targetFileSizeBytes).toBe(536870912);
    expect(o.minFileSizeBytes).toBe(402653184); // (long) (512 MiB × 0.75)
    expect(o.maxFileSizeBytes).toBe(966367641); // (long) (512 MiB × 1.8) = 966367641.6 → 966367641
    expect(o.minInputFiles).toBe(5);
    expect(o.deleteFileThreshold).toBe(2147483647);
    expect(o.deleteRatioThreshold).toBe(0.3);
    expect(o.rewriteAll).toBe(false);
    expect(o.maxFileGroupSizeBytes).toBe(100 * GiB);
    expect(o.rewriteJobOrder).toBe('none');
    expect(o.maxFilesToRewrite).toBeUndefined();
  });

  it('target defaults to the table write.target-file-size-bytes; min/max follow it', () => {
    const o = binpackOptionsFrom({}, { 'write.target-file-size-bytes': String(128 * MiB) });
    expect(o.targetFileSizeBytes).toBe(128 * MiB);
    expect(o.minFileSizeBytes).toBe(96 * MiB);
    expect(o.maxFileSizeBytes).toBe(Math.floor(128 * MiB * 1.8));
    // an explicit option wins over the table property
    expect(
      binpackOptionsFrom({ 'target-file-size-bytes': '1000' }, { 'write.target-file-size-bytes': '5' })
        .targetFileSizeBytes,
    ).toBe(1000);
  });

  it('rejects what Iceberg rejects, naming the option', () => {
    const bad: Record<string, string>[] = [
      { 'target-file-size-bytes': '100', 'min-file-size-bytes': '100' },
      { 'target-file-size-bytes': '100', 'max-file-size-bytes': '100' },
      { 'min-input-files': '0' },
      { 'delete-ratio-threshold': '0' },
      { 'delete-ratio-threshold': '1.5' },
      { 'delete-file-threshold': '-1' },
      { 'rewrite-job-order': 'random' },
      { 'min-input-files': 'five' },
    ];
    for (const b of bad) {
      let err: unknown;
      try {
        binpackOptionsFrom(b);
      } catch (e) {
        err = e;
      }
      expect(isFloeError(err, 'InvalidArgument')).toBe(true);
      expect((err as Error).message).toContain(Object.keys(b).at(-1)!);
    }
  });

  it('expected output files round down only when the remainder is small (Iceberg expectedOutputFiles)', () => {
    const o = opts(); // target 100, min 75, max 180, write max 140 (MiB)
    expect(writeMaxFileSize(o)).toBe(140 * MiB);
    expect(expectedOutputFiles(50 * MiB, o)).toBe(1); // under target
    expect(expectedOutputFiles(1010 * MiB, o)).toBe(10); // remainder 10 ≤ 75, avg 101 < 110 → round down
    expect(expectedOutputFiles(1080 * MiB, o)).toBe(11); // remainder 80 > 75 → keep it
    expect(expectedOutputFiles(170 * MiB, o)).toBe(2); // remainder 70 ≤ 75 but avg 170 ≥ 110 → round up
  });
});

describe('packing', () => {
  it('sequential packing (look-back 1) opens a new group as soon as an item does not fit', () => {
    expect(sequentialPack([60, 50, 40, 10], (x) => x, 100)).toEqual([[60], [50, 40, 10]]);
    expect(sequentialPack([1, 1, 1], (x) => x, 100, 2)).toEqual([[1, 1], [1]]);
  });
  it('first-fit packing (unlimited look-back) fills earlier bins first, oversized items alone', () => {
    expect(firstFitPack([60, 50, 40, 10, 150, 1], (x) => x, 100)).toEqual([[60, 40], [50, 10, 1], [150]]);
    expect(firstFitPack([10, 10, 10, 10, 10], (x) => x, 100, 2)).toEqual([[10, 10], [10, 10], [10]]);
  });
});

describe('planBinpack', () => {
  const spec = identitySpec(0, 2);

  it('leaves well-sized files alone and drops groups with too few files and too little content', () => {
    const ok = dataFile({ size: 100 * MiB, partition: ['a'] });
    const small = [1, 2, 3, 4].map(() => dataFile({ size: 10 * MiB, partition: ['a'] }));
    const plan = planBinpack(makeTable({ specs: [spec], dataFiles: [ok, ...small] }), opts(), NOW);
    expect(plan.tasks).toEqual([]); // 4 candidates < min-input-files 5, 40 MiB ≤ target
    expect(plan.trail.some((s) => s.gate === 'group' && s.outcome === 'skip')).toBe(true);
  });

  it('keeps a group of ≥ min-input-files small files', () => {
    const small = [1, 2, 3, 4, 5].map(() => dataFile({ size: 10 * MiB, partition: ['a'] }));
    const plan = planBinpack(makeTable({ specs: [spec], dataFiles: small }), opts(), NOW);
    expect(plan.tasks).toHaveLength(1);
    expect(paths(plan.tasks[0]!.inputs)).toEqual(paths(small));
    expect(plan.tasks[0]!.kind).toBe('binpack');
    expect(plan.tasks[0]!.expectedOutputFiles).toBe(1);
    expect(plan.tasks[0]!.maxOutputFileSizeBytes).toBe(140 * MiB);
  });

  it('keeps two small files whose total exceeds the target (enough content)', () => {
    const files = [dataFile({ size: 70 * MiB }), dataFile({ size: 70 * MiB })];
    const plan = planBinpack(makeTable({ dataFiles: files }), opts(), NOW);
    expect(plan.tasks).toHaveLength(1);
    expect(plan.tasks[0]!.inputs).toHaveLength(2);
  });

  it('rewrites a single too-large file (too much content)', () => {
    const big = dataFile({ size: 200 * MiB });
    const plan = planBinpack(makeTable({ dataFiles: [big, dataFile({ size: 100 * MiB })] }), opts(), NOW);
    expect(plan.tasks.map((t) => t.inputs.map((f) => f.path))).toEqual([[big.path]]);
    expect(plan.tasks[0]!.expectedOutputFiles).toBe(2); // 200 / 100: remainder 0, avg 200 ≥ 110 → 2
  });

  it('delete-file-threshold makes a well-sized file a candidate and keeps its group', () => {
    const f = dataFile({ size: 100 * MiB, seq: 1 });
    const d1 = posDelete({ seq: 2 });
    const d2 = eqDelete({ seq: 2 });
    const table = makeTable({ dataFiles: [f], deleteFiles: [d1, d2] });
    expect(planBinpack(table, opts(), NOW).tasks).toEqual([]);
    const plan = planBinpack(table, opts({ 'delete-file-threshold': '2' }), NOW);
    expect(plan.tasks).toHaveLength(1);
    expect(new Set(plan.tasks[0]!.deletes)).toEqual(new Set([d1, d2]));
    // only data file of the table: both deletes go with it
    expect(new Set(plan.removableDeletes)).toEqual(new Set([d1, d2]));
  });

  it('delete ratio counts only file-scoped deletes (≥ 30 % by default)', () => {
    const f = dataFile({ size: 100 * MiB, records: 1000, seq: 1 });
    const scoped = posDelete({ seq: 2, records: 300, referencedDataFile: f.path });
    expect(planBinpack(makeTable({ dataFiles: [f], deleteFiles: [scoped] }), opts(), NOW).tasks).toHaveLength(1);
    const fewer = posDelete({ seq: 2, records: 299, referencedDataFile: f.path });
    expect(planBinpack(makeTable({ dataFiles: [f], deleteFiles: [fewer] }), opts(), NOW).tasks).toHaveLength(0);
    const shared = posDelete({ seq: 2, records: 900 }); // partition-scoped: its count is not per file
    expect(planBinpack(makeTable({ dataFiles: [f], deleteFiles: [shared] }), opts(), NOW).tasks).toHaveLength(0);
  });

  it('groups never exceed max-file-group-size-bytes and are filled in file order', () => {
    const files = [40, 40, 40, 40, 40, 40].map((s) => dataFile({ size: s * MiB }));
    const plan = planBinpack(
      makeTable({ dataFiles: files }),
      opts({ 'max-file-group-size-bytes': String(100 * MiB), 'min-input-files': '2' }),
      NOW,
    );
    expect(plan.tasks.map((t) => t.inputs.map((f) => f.path))).toEqual([
      [files[0]!.path, files[1]!.path],
      [files[2]!.path, files[3]!.path],
      [files[4]!.path, files[5]!.path],
    ]);
  });

  it('rewrite-all takes every file and keeps every group, even a lone well-sized file', () => {
    const f = dataFile({ size: 100 * MiB });
    const plan = planBinpack(makeTable({ dataFiles: [f] }), opts({ 'rewrite-all': 'true' }), NOW);
    expect(plan.tasks).toHaveLength(1);
  });

  it('groups per partition of the current spec; files of older specs share one all-null group', () => {
    const specs = [unpartitionedSpec(0), identitySpec(1, 2)];
    const old = [1, 2, 3].map(() => dataFile({ specId: 0, size: 1 * MiB }));
    const oldNull = [1, 2].map(() => dataFile({ specId: 1, partition: [null], size: 1 * MiB }));
    const a = [1, 2, 3, 4, 5].map(() => dataFile({ specId: 1, partition: ['a'], size: 1 * MiB }));
    const plan = planBinpack(
      makeTable({ specs, defaultSpecId: 1, dataFiles: [...old, ...a, ...oldNull] }),
      opts(),
      NOW,
    );
    expect(plan.tasks).toHaveLength(2);
    const byPart = new Map(plan.tasks.map((t) => [JSON.stringify(t.partition), paths(t.inputs)]));
    expect(byPart.get('["a"]')).toEqual(paths(a));
    // As in Iceberg (a StructLikeMap keyed by an empty struct), the all-null partition of the current
    // spec shares the group of older-spec files.
    expect(byPart.get('[null]')).toEqual(paths([...old, ...oldNull]));
  });

  it('max-files-to-rewrite cuts groups in order; rewrite-job-order sorts them', () => {
    const a = [1, 2, 3, 4, 5].map(() => dataFile({ partition: ['a'], size: 1 * MiB }));
    const b = [1, 2, 3, 4, 5, 6].map(() => dataFile({ partition: ['b'], size: 1 * MiB }));
    const table = makeTable({ specs: [spec], dataFiles: [...a, ...b] });
    const cut = planBinpack(table, opts({ 'max-files-to-rewrite': '7' }), NOW);
    expect(cut.tasks.map((t) => t.inputs.length)).toEqual([5, 2]);
    const ordered = planBinpack(table, opts({ 'rewrite-job-order': 'files-desc' }), NOW);
    expect(ordered.tasks.map((t) => t.inputs.length)).toEqual([6, 5]);
  });
});
