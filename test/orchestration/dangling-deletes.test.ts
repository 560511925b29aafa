import { describe, expect, it } from 'vitest';
import { findDanglingDeletes } from '../../src/orchestration/dangling-deletes.js';
import { settleRemovableDeletes } from '../../src/orchestration/settle-deletes.js';
import { deleteFileId } from '../../src/core/planning/deletes.js';
import {
  dataFile,
  deletionVector,
  eqDelete,
  makeTable,
  posDelete,
  identitySpec,
  unpartitionedSpec,
} from '../core/planning/fixtures.js';

describe('dangling deletes', () => {
  it('an equality delete older than or equal to every data file of its partition is dangling', () => {
    const spec = identitySpec(0, 2);
    const t = makeTable({
      specs: [spec],
      dataFiles: [
        dataFile({ path: 'a', partition: ['eu'], seq: 5n }),
        dataFile({ path: 'b', partition: ['us'], seq: 1n }),
      ],
      deleteFiles: [
        eqDelete({ path: 'eq-eu-5', partition: ['eu'], seq: 5n }), // seq not > 5: applies to nothing
        eqDelete({ path: 'eq-eu-6', partition: ['eu'], seq: 6n }), // applies to a
        eqDelete({ path: 'eq-us-2', partition: ['us'], seq: 2n }), // applies to b
      ],
    });
    expect(findDanglingDeletes(t).map((d) => d.path)).toEqual(['eq-eu-5']);
  });

  it('a global equality delete stays while any older data file exists anywhere', () => {
    const t = makeTable({
      specs: [unpartitionedSpec()],
      dataFiles: [dataFile({ path: 'a', partition: [], seq: 3n })],
      deleteFiles: [eqDelete({ path: 'g4', partition: [], seq: 4n }), eqDelete({ path: 'g3', partition: [], seq: 3n })],
    });
    expect(findDanglingDeletes(t).map((d) => d.path)).toEqual(['g3']);
  });

  it('a position delete naming a removed file is dangling, one naming a live file under another scheme is not', () => {
    const spec = identitySpec(0, 2);
    const t = makeTable({
      specs: [spec],
      dataFiles: [dataFile({ path: '/wh/t/data/a.parquet', partition: ['eu'], seq: 1n })],
      deleteFiles: [
        posDelete({ path: 'p-gone', partition: ['eu'], seq: 2n, referencedDataFile: '/wh/t/data/gone.parquet' }),
        posDelete({
          path: 'p-live',
          partition: ['eu'],
          seq: 2n,
          referencedDataFile: 'hdfs://nn:8020/wh/t/data/a.parquet',
        }),
        posDelete({ path: 'p-partition', partition: ['eu'], seq: 1n }),
        posDelete({ path: 'p-other-partition', partition: ['us'], seq: 9n }),
      ],
    });
    expect(
      findDanglingDeletes(t)
        .map((d) => d.path)
        .sort(),
    ).toEqual(['p-gone', 'p-other-partition']);
  });
});

describe('deletion vectors sharing one Puffin file', () => {
  it('only the DV of a removed data file dangles; its id names the blob, not the whole Puffin file', () => {
    const t = makeTable({
      specs: [unpartitionedSpec()],
      dataFiles: [dataFile({ path: 'large', seq: 1n })],
      deleteFiles: [
        deletionVector({ path: 'dvs.puffin', offset: 4, referencedDataFile: 'large', seq: 3n }),
        deletionVector({ path: 'dvs.puffin', offset: 80, referencedDataFile: 'small-rewritten', seq: 3n }),
      ],
    });
    expect(findDanglingDeletes(t).map(deleteFileId)).toEqual(['dvs.puffin#80']);
  });
});

describe('settling the plan-wide removable deletes after the tasks committed', () => {
  const spec = identitySpec(0, 2);
  it('an equality delete spanning a rewritten and a converted file goes once both committed', () => {
    const eq = eqDelete({ path: 'eq', partition: ['eu'], seq: 3n });
    const current = makeTable({
      specs: [spec],
      dataFiles: [
        dataFile({ path: 'converted', partition: ['eu'], seq: 1n }),
        dataFile({ path: 'output', partition: ['eu'], seq: 3n }),
      ],
      deleteFiles: [eq, posDelete({ path: 'new-pos', partition: ['eu'], seq: 3n, referencedDataFile: 'converted' })],
    });
    expect(
      settleRemovableDeletes({
        current,
        candidates: [eq],
        converted: new Set(['converted']),
        added: new Set(['output']),
      }).map((d) => d.path),
    ).toEqual(['eq']);
    // the conversion did not commit: the equality delete still removes rows of that file
    expect(
      settleRemovableDeletes({ current, candidates: [eq], converted: new Set(), added: new Set(['output']) }),
    ).toEqual([]);
  });

  it('a DV stays while its data file is live, even if it was converted or a candidate', () => {
    const dv = deletionVector({ path: 'dvs.puffin', offset: 4, referencedDataFile: 'large', seq: 3n });
    const gone = deletionVector({ path: 'dvs.puffin', offset: 80, referencedDataFile: 'rewritten', seq: 3n });
    const current = makeTable({
      specs: [unpartitionedSpec()],
      dataFiles: [dataFile({ path: 'large', seq: 1n })],
      deleteFiles: [dv, gone],
    });
    const settled = settleRemovableDeletes({
      current,
      candidates: [dv, gone],
      converted: new Set(['large']),
      added: new Set(),
    });
    expect(settled.map(deleteFileId)).toEqual(['dvs.puffin#80']);
  });

  it('a partition-wide position delete may ignore files this run added, not files that survived', () => {
    const pos = posDelete({ path: 'pos', partition: ['eu'], seq: 3n });
    const current = makeTable({
      specs: [spec],
      dataFiles: [
        dataFile({ path: 'output', partition: ['eu'], seq: 3n }),
        dataFile({ path: 'survivor', partition: ['eu'], seq: 2n }),
      ],
      deleteFiles: [pos],
    });
    expect(
      settleRemovableDeletes({ current, candidates: [pos], converted: new Set(), added: new Set(['output']) }),
    ).toEqual([]);
    const rewritten = makeTable({
      specs: [spec],
      dataFiles: [dataFile({ path: 'output', partition: ['eu'], seq: 3n })],
      deleteFiles: [pos],
    });
    expect(
      settleRemovableDeletes({
        current: rewritten,
        candidates: [pos],
        converted: new Set(),
        added: new Set(['output']),
      }).map((d) => d.path),
    ).toEqual(['pos']);
  });
});
