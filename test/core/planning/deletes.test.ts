import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  associateDeletes,
  buildDeleteIndex,
  computeRemovableDeletes,
  deleteApplies,
  isUnpartitionedSpec,
} from '../../../src/core/planning/deletes.js';
import type { DataFile, DeleteFile, PartitionSpec } from '../../../model/index.js';
import {
  dataFile,
  deletionVector,
  eqDelete,
  identitySpec,
  makeTable,
  posDelete,
  unpartitionedSpec,
} from './fixtures.js';

const specs: PartitionSpec[] = [unpartitionedSpec(0), identitySpec(1, 2)];

function applied(data: DataFile, deletes: DeleteFile[], s: PartitionSpec[] = specs): DeleteFile[] {
  return [...buildDeleteIndex(s, deletes).forDataFile(data)];
}

describe('delete association (Iceberg scan-planning rules)', () => {
  it('equal sequence numbers: a position delete applies, an equality delete does not', () => {
    const d = dataFile({ specId: 1, partition: ['a'], seq: 5 });
    const pos = posDelete({ specId: 1, partition: ['a'], seq: 5 });
    const eq = eqDelete({ specId: 1, partition: ['a'], seq: 5 });
    expect(applied(d, [pos, eq])).toEqual([pos]);
    const eqNewer = eqDelete({ specId: 1, partition: ['a'], seq: 6 });
    const posOlder = posDelete({ specId: 1, partition: ['a'], seq: 4 });
    expect(applied(d, [eqNewer, posOlder])).toEqual([eqNewer]);
  });

  it('an equality delete of an unpartitioned spec is global: it reaches every partition and spec', () => {
    const global = eqDelete({ specId: 0, partition: [], seq: 3 });
    const inA = dataFile({ specId: 1, partition: ['a'], seq: 2 });
    const inB = dataFile({ specId: 1, partition: ['b'], seq: 1 });
    const unpart = dataFile({ specId: 0, partition: [], seq: 2 });
    const newer = dataFile({ specId: 1, partition: ['a'], seq: 3 });
    expect(applied(inA, [global])).toEqual([global]);
    expect(applied(inB, [global])).toEqual([global]);
    expect(applied(unpart, [global])).toEqual([global]);
    expect(applied(newer, [global])).toEqual([]);
  });

  it('a position delete of an unpartitioned spec is not global', () => {
    const pos = posDelete({ specId: 0, partition: [], seq: 3 });
    expect(applied(dataFile({ specId: 1, partition: ['a'], seq: 1 }), [pos])).toEqual([]);
    expect(applied(dataFile({ specId: 0, partition: [], seq: 1 }), [pos])).toEqual([pos]);
  });

  it('a spec whose fields are all void transforms counts as unpartitioned', () => {
    const voidSpec: PartitionSpec = {
      specId: 2,
      fields: [{ sourceId: 2, fieldId: 1000, name: 'p', transform: 'void' }],
    };
    expect(isUnpartitionedSpec(voidSpec)).toBe(true);
    expect(isUnpartitionedSpec(identitySpec(1, 2))).toBe(false);
    const eq = eqDelete({ specId: 2, partition: [null], seq: 3 });
    expect(applied(dataFile({ specId: 1, partition: ['x'], seq: 1 }), [eq], [...specs, voidSpec])).toEqual([eq]);
  });

  it('partition evolution: same partition values under another spec id do not match', () => {
    const s: PartitionSpec[] = [identitySpec(0, 2), identitySpec(1, 2)];
    const oldFile = dataFile({ specId: 0, partition: ['a'], seq: 1 });
    const pos = posDelete({ specId: 1, partition: ['a'], seq: 2 });
    const eq = eqDelete({ specId: 1, partition: ['a'], seq: 2 });
    expect(applied(oldFile, [pos, eq], s)).toEqual([]);
    const newFile = dataFile({ specId: 1, partition: ['a'], seq: 1 });
    expect(new Set(applied(newFile, [pos, eq], s))).toEqual(new Set([pos, eq]));
  });

  it('a file-scoped position delete applies only to the file it names', () => {
    const a = dataFile({ specId: 1, partition: ['a'], seq: 1 });
    const b = dataFile({ specId: 1, partition: ['a'], seq: 1 });
    const scoped = posDelete({ specId: 1, partition: ['a'], seq: 2, referencedDataFile: a.path });
    expect(applied(a, [scoped])).toEqual([scoped]);
    expect(applied(b, [scoped])).toEqual([]);
  });

  it('a deletion vector masks position delete files of its data file', () => {
    const a = dataFile({ specId: 1, partition: ['a'], seq: 1 });
    const pos = posDelete({ specId: 1, partition: ['a'], seq: 2 });
    const dv = deletionVector({ specId: 1, partition: ['a'], seq: 3, referencedDataFile: a.path });
    const eq = eqDelete({ specId: 1, partition: ['a'], seq: 3 });
    expect(new Set(applied(a, [pos, dv, eq]))).toEqual(new Set([dv, eq]));
    // another file in the partition still sees the partition-scoped position delete
    expect(applied(dataFile({ specId: 1, partition: ['a'], seq: 1 }), [pos, dv])).toEqual([pos]);
  });

  it('agrees with the pairwise rule on random tables (no DVs)', () => {
    const file = fc.record({
      spec: fc.integer({ min: 0, max: 1 }),
      part: fc.constantFrom('a', 'b'),
      seq: fc.integer({ min: 0, max: 4 }),
    });
    fc.assert(
      fc.property(
        fc.array(file, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(file, fc.constantFrom('eq', 'pos', 'scoped'), fc.nat(5)), { maxLength: 8 }),
        (ds, dels) => {
          const data = ds.map((d) => dataFile({ specId: d.spec, partition: d.spec === 0 ? [] : [d.part], seq: d.seq }));
          const deletes: DeleteFile[] = dels.map(([d, kind, target]) => {
            const o = { specId: d.spec, partition: d.spec === 0 ? [] : [d.part], seq: d.seq };
            if (kind === 'eq') return eqDelete(o);
            if (kind === 'pos') return posDelete(o);
            return posDelete({ ...o, referencedDataFile: data[target % data.length]!.path });
          });
          const index = buildDeleteIndex(specs, deletes);
          for (const d of data) {
            const expected = deletes.filter((x) => deleteApplies(d, x, specs));
            expect(new Set(index.forDataFile(d))).toEqual(new Set(expected));
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('removable deletes', () => {
  it('a delete goes only when every file it applies to is a task input; per task only if one task covers all', () => {
    const a1 = dataFile({ specId: 1, partition: ['a'], seq: 1 });
    const a2 = dataFile({ specId: 1, partition: ['a'], seq: 1 });
    const b1 = dataFile({ specId: 1, partition: ['b'], seq: 1 });
    const partA = eqDelete({ specId: 1, partition: ['a'], seq: 2 });
    const global = eqDelete({ specId: 0, partition: [], seq: 2 });
    const dangling = posDelete({ specId: 1, partition: ['c'], seq: 2 });
    const table = makeTable({ specs, dataFiles: [a1, a2, b1], deleteFiles: [partA, global, dangling] });
    const assoc = associateDeletes(table);
    const of = (f: DataFile) => assoc.get(f) ?? [];

    // Only partition a rewritten, in one task: its partition delete goes, the global one stays (b1 needs it).
    let r = computeRemovableDeletes(table.dataFiles, of, [[a1, a2]], table.deleteFiles);
    expect(r.plan).toEqual([partA]);
    expect(r.perTask).toEqual([[partA]]);

    // a1 alone: partA is still needed by a2.
    r = computeRemovableDeletes(table.dataFiles, of, [[a1]], table.deleteFiles);
    expect(r.plan).toEqual([]);

    // Both partitions, two tasks: the global delete is removable for the plan, by neither task alone.
    r = computeRemovableDeletes(table.dataFiles, of, [[a1, a2], [b1]], table.deleteFiles);
    expect(r.plan).toEqual([partA, global]);
    expect(r.perTask).toEqual([[partA], []]);
  });
});

describe('removable deletes when some planned tasks will not run', () => {
  it('a delete spanning a rewritten file and a skipped (v3 eq→pos) task is not promised; one local to the rewrite is', async () => {
    const { withoutTasks } = await import('../../../src/core/planning/deletes.js');
    const small = dataFile({ path: 'small', seq: 1 });
    const large = dataFile({ path: 'large', seq: 1 });
    const eq = eqDelete({ seq: 3 });
    const dvSmall = deletionVector({ path: 'dvs.puffin', offset: 4, referencedDataFile: 'small', seq: 3 });
    const dvLarge = deletionVector({ path: 'dvs.puffin', offset: 90, referencedDataFile: 'large', seq: 3 });
    const table = makeTable({
      specs: [unpartitionedSpec()],
      dataFiles: [small, large],
      deleteFiles: [eq, dvSmall, dvLarge],
    });
    const tasks = [
      { kind: 'minor', inputs: [small], removableDeletes: [] as DeleteFile[] },
      { kind: 'eq-to-pos', inputs: [large], removableDeletes: [] as DeleteFile[] },
    ];
    const plan = withoutTasks({ tasks, removableDeletes: [] as DeleteFile[] }, table, (t) => t.kind === 'eq-to-pos');
    expect(plan.tasks[0]!.removableDeletes).toEqual([dvSmall]);
    expect(plan.tasks[1]!.removableDeletes).toEqual([]);
    expect(plan.removableDeletes).toEqual([dvSmall]);
  });
});
