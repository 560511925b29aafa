/**
 * `FullChangelogMergeFunctionWrapper`'s and `LookupChangelogMergeFunctionWrapper.setChangelog`'s rules, case by case (expected rows written from Paimon's source,
 * not from floe): the record at the max level is "before", the merged record "after".
 */
import { describe, expect, it } from 'vitest';
import { fullCompactionChangelog, lookupChangelog } from '../../../connectors/paimon/compact-changelog.js';
import type { KeyValue } from '../../../connectors/paimon/merge-engines.js';
import type { PaimonTable } from '../../../connectors/paimon/table.js';

const table = (options: Record<string, string> = {}) =>
  ({
    location: 't',
    schema: {
      id: 0,
      fields: [
        { id: 0, name: 'k', type: { root: 'INT', nullable: false } },
        { id: 1, name: 'v', type: { root: 'VARCHAR', nullable: true, length: 2147483647 } },
      ],
      primaryKeys: ['k'],
      partitionKeys: [],
      options,
    },
  }) as unknown as PaimonTable;

const kv = (kind: number, v: string, level: number, seq: number): KeyValue => ({
  key: [1],
  sequenceNumber: BigInt(seq),
  kind,
  value: [1, v],
  level,
});
const show = (r: KeyValue[]) => r.map((x) => `${['+I', '-U', '+U', '-D'][x.kind]}:${x.value[1]}@${x.sequenceNumber}`);

describe('full-compaction changelog rules', () => {
  const f = fullCompactionChangelog(table(), 5);
  it('a new key: +I of the merged record', () => {
    expect(show(f([kv(0, 'a', 0, 1), kv(2, 'b', 0, 2)], kv(2, 'b', 0, 2)))).toEqual(['+I:b@2']);
    expect(show(f([kv(0, 'a', 0, 1)], kv(0, 'a', 0, 1)))).toEqual(['+I:a@1']);
  });
  it('an updated key: -U before (max level), +U after', () => {
    expect(show(f([kv(0, 'a', 5, 1), kv(2, 'b', 0, 2)], kv(2, 'b', 0, 2)))).toEqual(['-U:a@1', '+U:b@2']);
  });
  it('a deleted key: -D of the max-level record', () => {
    expect(show(f([kv(0, 'a', 5, 1), kv(3, 'a', 0, 2)], kv(3, 'a', 0, 2)))).toEqual(['-D:a@1']);
  });
  it('a key only at the max level, or deleted before it got there: nothing', () => {
    expect(f([kv(0, 'a', 5, 1)], kv(0, 'a', 5, 1))).toEqual([]);
    expect(f([kv(3, 'a', 0, 1)], kv(3, 'a', 0, 1))).toEqual([]);
    expect(f([kv(0, 'a', 0, 1), kv(3, 'a', 0, 2)], kv(3, 'a', 0, 2))).toEqual([]);
  });
  it('an unchanged value still gives -U/+U unless changelog-producer.row-deduplicate', () => {
    const same = [kv(0, 'a', 5, 1), kv(2, 'a', 0, 2)];
    expect(show(f(same, kv(2, 'a', 0, 2)))).toEqual(['-U:a@1', '+U:a@2']);
    const dedupe = fullCompactionChangelog(table({ 'changelog-producer.row-deduplicate': 'true' }), 5);
    expect(dedupe(same, kv(2, 'a', 0, 2))).toEqual([]);
  });
});

describe('lookup changelog rules', () => {
  const f = lookupChangelog(table());
  it('no level-0 record: no changelog (a merge of higher levels only)', () => {
    expect(f([kv(0, 'a', 3, 1), kv(0, 'b', 2, 2)], kv(0, 'b', 2, 2))).toEqual([]);
  });
  it('level-0 records with nothing above: +I, or nothing for a retract', () => {
    expect(show(f([kv(0, 'a', 0, 1)], kv(0, 'a', 0, 1)))).toEqual(['+I:a@1']);
    expect(f([kv(3, 'a', 0, 1)], kv(3, 'a', 0, 1))).toEqual([]);
  });
  it('before = the lowest level above 0 (looked up or in the unit)', () => {
    expect(show(f([kv(0, 'old', 4, 1), kv(0, 'mid', 2, 3), kv(2, 'new', 0, 5)], kv(2, 'new', 0, 5)))).toEqual([
      '-U:mid@3',
      '+U:new@5',
    ]);
    expect(show(f([kv(0, 'a', 5, 1), kv(3, 'a', 0, 2)], kv(3, 'a', 0, 2)))).toEqual(['-D:a@1']);
  });
  it('a retracted "before" counts as absent', () => {
    expect(show(f([kv(3, 'a', 4, 1), kv(0, 'b', 0, 2)], kv(0, 'b', 0, 2)))).toEqual(['+I:b@2']);
  });
});
