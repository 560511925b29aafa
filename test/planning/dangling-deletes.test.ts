import { describe, expect, it } from 'vitest';
import { findDanglingDeletes } from '../../src/orchestration/dangling-deletes.js';
import { dataFile, eqDelete, makeTable, posDelete, identitySpec, unpartitionedSpec } from './fixtures.js';

describe('dangling deletes', () => {
  it('an equality delete older than or equal to every data file of its partition is dangling', () => {
    const spec = identitySpec(0, 2);
    const t = makeTable({
      specs: [spec],
      dataFiles: [dataFile({ path: 'a', partition: ['eu'], seq: 5n }), dataFile({ path: 'b', partition: ['us'], seq: 1n })],
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
        posDelete({ path: 'p-live', partition: ['eu'], seq: 2n, referencedDataFile: 'hdfs://nn:8020/wh/t/data/a.parquet' }),
        posDelete({ path: 'p-partition', partition: ['eu'], seq: 1n }),
        posDelete({ path: 'p-other-partition', partition: ['us'], seq: 9n }),
      ],
    });
    expect(findDanglingDeletes(t).map((d) => d.path).sort()).toEqual(['p-gone', 'p-other-partition']);
  });
});
