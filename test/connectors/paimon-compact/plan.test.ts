/**
 * MergeTreeCompactTask's rewrite-or-upgrade rules on hand-made files (one INT key). Expectations follow
 * the rules as stated in the reference sheet §5.8, worked out by hand for each layout.
 */
import { describe, expect, it } from 'vitest';
import { encodeSerializedRow } from '../../../connectors/paimon/binary-row.js';
import { intervalPartition, planSteps, type CompactStep } from '../../../connectors/paimon/compact-pk.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import type { PaimonSchema } from '../../../connectors/paimon/metadata.js';
import type { PaimonFile, PaimonTable } from '../../../connectors/paimon/table.js';
import type { PaimonType } from '../../../connectors/paimon/types.js';

const localIO = new FileIO();

const KEY: PaimonType = { root: 'INT', nullable: false };
const schema: PaimonSchema = {
  version: 3,
  id: 0,
  highestFieldId: 1,
  partitionKeys: [],
  primaryKeys: ['k'],
  options: {},
  timeMillis: 0,
  file: 'schema-0',
  fields: [
    { id: 0, name: 'k', type: KEY },
    { id: 1, name: 'v', type: { root: 'VARCHAR', nullable: true, length: 2147483647 } },
  ],
};
const table = {
  location: '/t',
  io: localIO,
  schema,
  schemas: new Map([[0, schema]]),
  files: [],
  indexEntries: [],
} as PaimonTable;
const MIN = 1000; // minFileSize of these tests

function file(
  name: string,
  level: number,
  min: number,
  max: number,
  size: number,
  deletes: bigint | null = 0n,
): PaimonFile {
  const meta = {
    fileName: name,
    fileSize: BigInt(size),
    rowCount: 1n,
    minKey: encodeSerializedRow([KEY], [min]),
    maxKey: encodeSerializedRow([KEY], [max]),
    keyStats: null,
    valueStats: null,
    minSequenceNumber: 0n,
    maxSequenceNumber: 0n,
    schemaId: 0,
    level,
    extraFiles: [],
    ...(deletes === null ? {} : { deleteRowCount: deletes }),
  };
  return {
    meta,
    path: `/t/bucket-0/${name}`,
    partition: [],
    partitionBytes: encodeSerializedRow([], []),
    bucket: 0,
    totalBuckets: 1,
  };
}

const show = (steps: CompactStep[]) =>
  steps.map((s) =>
    s.kind === 'upgrade'
      ? `up ${s.file.meta.fileName}->L${s.toLevel}`
      : `rw ${s.sections.map((sec) => sec.map((r) => r.map((f) => f.meta.fileName).join('+')).join('|')).join(' / ')}`,
  );

const plan = (files: PaimonFile[], outputLevel: number, force = false) =>
  show(planSteps(table, files, { outputLevel, maxLevel: 5, minFileSize: MIN, forceRewriteAllFiles: force }));

describe('IntervalPartition', () => {
  it('cuts sections at gaps and packs overlapping files into the fewest runs', () => {
    const a = file('a', 0, 1, 10, 10);
    const b = file('b', 0, 5, 15, 10);
    const c = file('c', 0, 11, 20, 10); // fits after a in the same run
    const d = file('d', 0, 30, 40, 10); // new section
    const sections = intervalPartition(table, [d, c, b, a]);
    expect(sections.map((s) => s.map((r) => r.map((f) => f.meta.fileName)))).toEqual([[['a', 'c'], ['b']], [['d']]]);
  });
});

describe('rewrite or upgrade', () => {
  it('overlapping files are merged', () => {
    expect(plan([file('a', 0, 1, 10, 5000), file('b', 5, 5, 20, 5000)], 5)).toEqual(['rw a|b']);
  });
  it('a large file without deletes is upgraded; one that may hold deletes is rewritten into the max level', () => {
    expect(
      plan([file('a', 0, 1, 10, 5000), file('b', 0, 20, 30, 5000, 2n), file('c', 0, 40, 50, 5000, null)], 5),
    ).toEqual(['up a->L5', 'rw b', 'rw c']);
  });
  it('below the max level, files with deletes are upgraded too', () => {
    expect(plan([file('a', 0, 1, 10, 5000, 2n)], 3)).toEqual(['up a->L3']);
  });
  it('a lone small file before a large one is upgraded (single-run candidate), two small ones are merged', () => {
    expect(plan([file('a', 0, 1, 10, 10), file('b', 0, 20, 30, 5000)], 4)).toEqual(['up a->L4', 'up b->L4']);
    expect(plan([file('a', 0, 1, 10, 10), file('b', 0, 20, 30, 10)], 4)).toEqual(['rw a / b']);
  });
  it('a large file already at the output level stays; small neighbours around it are merged separately', () => {
    expect(
      plan(
        [
          file('s1', 0, 1, 2, 10),
          file('s2', 0, 3, 4, 10),
          file('big', 4, 10, 20, 5000),
          file('s3', 0, 30, 31, 10),
          file('s4', 0, 32, 33, 10),
        ],
        4,
      ),
    ).toEqual(['rw s1 / s2', 'rw s3 / s4']);
  });
  it('compaction.force-rewrite-all-files rewrites every file', () => {
    expect(plan([file('a', 0, 1, 10, 5000), file('b', 4, 20, 30, 5000)], 4, true)).toEqual(['rw a', 'rw b']);
  });
});
