/**
 * Merge engines on hand-built sorted runs. Every expectation is worked out by hand from Paimon's documented
 * semantics (docs/primary-key-table/merge-engine/*, the *MergeFunction sources), not from this code.
 */
import { describe, expect, it } from 'vitest';
import {
  aggregation,
  createMergeFunction,
  deduplicate,
  firstRow,
  partialUpdate,
  type KeyValue,
  type MergeFunction,
} from '../../../connectors/paimon/merge-engines.js';
import { mergeRuns } from '../../../connectors/paimon/scan.js';
import { parseAtomicType, type PaimonField } from '../../../connectors/paimon/types.js';
import { isFloeError } from '../../../util/errors.js';

const T = (s: string) => parseAtomicType(s, 'test');
const fields = (...spec: [string, string][]): PaimonField[] =>
  spec.map(([name, type], id) => ({ id, name, type: T(type) }));

/** A record: key k, sequence s, kind ('+I' | '-U' | '+U' | '-D'), values. */
function kv(k: number, s: number, kind: '+I' | '-U' | '+U' | '-D', ...value: unknown[]): KeyValue {
  return {
    key: [k],
    sequenceNumber: BigInt(s),
    kind: { '+I': 0, '-U': 1, '+U': 2, '-D': 3 }[kind],
    value: [k, ...value],
    level: 0,
  };
}

function cursor(records: KeyValue[]) {
  let i = 0;
  return { head: async () => records[i], advance: () => void i++ };
}

async function merge(runs: KeyValue[][], mf: MergeFunction): Promise<unknown[][]> {
  const out: unknown[][] = [];
  for await (const r of mergeRuns(runs.map(cursor), [T('INT')], mf)) out.push(r.value);
  return out;
}

describe('sort-merge of runs', () => {
  it('deduplicate keeps the highest sequence number whichever run holds it, and drops deletes', async () => {
    // L0 (newest) and L1: key 1 updated in L0, key 2 only in L1, key 3 deleted in L0, key 4 only in L0
    const l0 = [kv(1, 10, '+I', 'new'), kv(3, 11, '-D', 'c'), kv(4, 12, '+I', 'd')];
    const l1 = [kv(1, 1, '+I', 'old'), kv(2, 2, '+I', 'b'), kv(3, 3, '+I', 'c')];
    expect(await merge([l0, l1], deduplicate({}))).toEqual([
      [1, 'new'],
      [2, 'b'],
      [4, 'd'],
    ]);
  });

  it('the newest record wins by sequence number, not by run order', async () => {
    // run order says nothing: the record with sequence 9 is newer than the one with 5
    const a = [kv(1, 5, '+I', 'five')];
    const b = [kv(1, 9, '+I', 'nine')];
    expect(await merge([a, b], deduplicate({}))).toEqual([[1, 'nine']]);
    expect(await merge([b, a], deduplicate({}))).toEqual([[1, 'nine']]);
  });

  it('a lone retraction is not visible', async () => {
    expect(await merge([[kv(1, 1, '-U', 'x')]], deduplicate({}))).toEqual([]);
  });

  it('ignore-delete skips the delete so the older insert survives', async () => {
    const runs = [[kv(1, 2, '-D', 'x')], [kv(1, 1, '+I', 'keep')]];
    expect(await merge(runs, deduplicate({ 'ignore-delete': 'true' }))).toEqual([[1, 'keep']]);
    // the legacy key is honoured too
    expect(await merge(runs, deduplicate({ 'deduplicate.ignore-delete': 'true' }))).toEqual([[1, 'keep']]);
    expect(await merge(runs, deduplicate({}))).toEqual([]);
  });

  it('sequence.field orders records before the sequence number', async () => {
    const f = fields(['k', 'INT NOT NULL'], ['ts', 'BIGINT'], ['v', 'STRING']);
    const mf = createMergeFunction(f, ['k'], { 'sequence.field': 'ts' }, 't');
    // seq 2 was written later but carries an older ts: ts 100 wins
    const runs = [[kv(1, 2, '+I', 50n, 'late-old')], [kv(1, 1, '+I', 100n, 'early-new')]];
    const out: unknown[][] = [];
    const order = (x: KeyValue, y: KeyValue) => {
      const c =
        (x.value[1] as bigint) < (y.value[1] as bigint) ? -1 : (x.value[1] as bigint) > (y.value[1] as bigint) ? 1 : 0;
      return c || (x.sequenceNumber < y.sequenceNumber ? -1 : 1);
    };
    for await (const r of mergeRuns(runs.map(cursor), [T('INT')], mf, order)) out.push(r.value);
    expect(out).toEqual([[1, 100n, 'early-new']]);
  });
});

describe('first-row', () => {
  it('keeps the oldest record', async () => {
    const runs = [[kv(1, 5, '+I', 'second')], [kv(1, 3, '+I', 'first')]];
    expect(await merge(runs, firstRow({}, 't'))).toEqual([[1, 'first']]);
  });
  it('refuses retractions unless ignore-delete', async () => {
    const runs = [[kv(1, 5, '-D', 'x')], [kv(1, 3, '+I', 'first')]];
    const err = await merge(runs, firstRow({}, 'tbl')).catch((e) => e);
    expect(isFloeError(err, 'Unsupported')).toBe(true);
    expect(await merge(runs, firstRow({ 'ignore-delete': 'true' }, 'tbl'))).toEqual([[1, 'first']]);
  });
});

describe('partial-update', () => {
  const f = fields(['k', 'INT NOT NULL'], ['a', 'STRING'], ['b', 'INT']);
  it('later non-null fields overwrite, nulls do not', async () => {
    // seq1: (a1, null) → seq2: (null, 7) → seq3: (a3, null)  ⇒  (a3, 7)
    const runs = [[kv(1, 3, '+I', 'a3', null)], [kv(1, 2, '+I', null, 7)], [kv(1, 1, '+I', 'a1', null)]];
    expect(await merge(runs, partialUpdate(f, {}, 't'))).toEqual([[1, 'a3', 7]]);
  });
  it('refuses deletes by default, removes the row with remove-record-on-delete, ignores with ignore-delete', async () => {
    const runs = [[kv(1, 2, '-D', null, null)], [kv(1, 1, '+I', 'x', 1)]];
    expect(isFloeError(await merge(runs, partialUpdate(f, {}, 't')).catch((e) => e), 'Unsupported')).toBe(true);
    expect(await merge(runs, partialUpdate(f, { 'partial-update.remove-record-on-delete': 'true' }, 't'))).toEqual([]);
    expect(await merge(runs, partialUpdate(f, { 'ignore-delete': 'true' }, 't'))).toEqual([[1, 'x', 1]]);
  });
  it('a row inserted again after a delete starts from the deleted values, as Paimon does', async () => {
    // -D at seq 2 resets the row to the delete's values (x2, 2); +I at seq 3 (null, 9) then fills b ⇒ (x2, 9)
    const runs = [[kv(1, 3, '+I', null, 9)], [kv(1, 2, '-D', 'x2', 2)], [kv(1, 1, '+I', 'x', 1)]];
    expect(await merge(runs, partialUpdate(f, { 'partial-update.remove-record-on-delete': 'true' }, 't'))).toEqual([
      [1, 'x2', 9],
    ]);
  });
  it('refuses sequence groups', () => {
    expect(() => partialUpdate(f, { 'fields.a.sequence-group': 'b' }, 't')).toThrow(/sequence groups/);
  });
});

describe('aggregation', () => {
  const f = fields(
    ['k', 'INT NOT NULL'],
    ['total', 'BIGINT'],
    ['lo', 'INT'],
    ['hi', 'DOUBLE'],
    ['last', 'STRING'],
    ['lastnn', 'STRING'],
    ['first', 'STRING'],
    ['firstnn', 'STRING'],
    ['tags', 'STRING'],
    ['all', 'BOOLEAN'],
    ['any', 'BOOLEAN'],
    ['amount', 'DECIMAL(10, 2)'],
  );
  const options = {
    'merge-engine': 'aggregation',
    'fields.total.aggregate-function': 'sum',
    'fields.lo.aggregate-function': 'min',
    'fields.hi.aggregate-function': 'max',
    'fields.last.aggregate-function': 'last_value',
    'fields.lastnn.aggregate-function': 'last_non_null_value',
    'fields.first.aggregate-function': 'first_value',
    'fields.firstnn.aggregate-function': 'first_non_null_value',
    'fields.tags.aggregate-function': 'listagg',
    'fields.all.aggregate-function': 'bool_and',
    'fields.any.aggregate-function': 'bool_or',
    'fields.amount.aggregate-function': 'sum',
  };
  it('aggregates three records field by field', async () => {
    const runs = [
      [kv(1, 3, '+I', 5n, 9, 0.5, null, null, 'f3', 'g3', 'c', true, false, '0.05')],
      [kv(1, 2, '+I', null, 2, 7.5, 'l2', 'n2', 'f2', 'g2', '', false, false, '1.10')],
      [kv(1, 1, '+I', 10n, 4, null, 'l1', 'n1', null, null, 'a,b', true, false, '2.00')],
    ];
    // sum 10+5 (null skipped); min(4,2,9)=2; max(7.5,0.5)=7.5; last_value = null (last record's);
    // last_non_null = n2; first_value = null (first record's); first_non_null = g2;
    // listagg "a,b" + "" (blank skipped) + "c"; bool_and false; bool_or false; decimal sum 3.15
    expect(await merge(runs, createMergeFunction(f, ['k'], options, 't'))).toEqual([
      [1, 15n, 2, 7.5, null, 'n2', null, 'g2', 'a,b,c', false, false, '3.15'],
    ]);
  });
  it('retracts sum and last_non_null_value, refuses max retraction unless ignore-retract', async () => {
    const g = fields(['k', 'INT NOT NULL'], ['total', 'INT'], ['v', 'STRING']);
    const o = { 'fields.total.aggregate-function': 'sum' };
    // +I (10, x) then -U (3, x): sum 10-3 = 7; last_non_null retract of non-null → null
    const runs = [[kv(1, 2, '-U', 3, 'x')], [kv(1, 1, '+I', 10, 'x')]];
    expect(await merge(runs, aggregation(g, ['k'], o))).toEqual([[1, 7, null]]);
    const h = fields(['k', 'INT NOT NULL'], ['m', 'INT']);
    const maxRuns = [[kv(1, 2, '-U', 3)], [kv(1, 1, '+I', 10)]];
    const err = await merge(maxRuns, aggregation(h, ['k'], { 'fields.m.aggregate-function': 'max' })).catch((e) => e);
    expect(isFloeError(err, 'Unsupported')).toBe(true);
    expect(
      await merge(
        maxRuns,
        aggregation(h, ['k'], { 'fields.m.aggregate-function': 'max', 'fields.m.ignore-retract': 'true' }),
      ),
    ).toEqual([[1, 10]]);
  });
  it('a sum over a retraction with no prior value negates it', async () => {
    const g = fields(['k', 'INT NOT NULL'], ['total', 'INT']);
    const runs = [[kv(1, 2, '+I', 4)], [kv(1, 1, '-U', 3)]];
    // -U first: acc null → -3; then +4 ⇒ 1
    expect(await merge(runs, aggregation(g, ['k'], { 'fields.total.aggregate-function': 'sum' }))).toEqual([[1, 1]]);
  });
  it('remove-record-on-delete drops the key', async () => {
    const g = fields(['k', 'INT NOT NULL'], ['total', 'INT']);
    const runs = [[kv(1, 2, '-D', 4)], [kv(1, 1, '+I', 3)]];
    expect(
      await merge(
        runs,
        aggregation(g, ['k'], {
          'fields.total.aggregate-function': 'sum',
          'aggregation.remove-record-on-delete': 'true',
        }),
      ),
    ).toEqual([]);
  });
  it('default function is last_non_null_value and sum overflow is an error', async () => {
    const g = fields(['k', 'INT NOT NULL'], ['v', 'STRING'], ['n', 'TINYINT']);
    const runs = [[kv(1, 2, '+I', null, 100)], [kv(1, 1, '+I', 'keep', 100)]];
    const err = await merge(runs, aggregation(g, ['k'], { 'fields.n.aggregate-function': 'sum' })).catch((e) => e);
    expect((err as Error).message).toMatch(/overflow/);
    expect(await merge(runs, aggregation(g, ['k'], {}))).toEqual([[1, 'keep', 100]]);
  });
  it('refuses unknown or unsupported functions by name', () => {
    const g = fields(['k', 'INT NOT NULL'], ['v', 'INT']);
    for (const fn of ['count', 'collect', 'hll_sketch', 'rbm64']) {
      expect(() => aggregation(g, ['k'], { 'fields.v.aggregate-function': fn })).toThrow(new RegExp(`'${fn}'`));
    }
  });
  it('unknown merge engines are refused', () => {
    expect(() => createMergeFunction(fields(['k', 'INT']), ['k'], { 'merge-engine': 'magic' }, 't')).toThrow(/magic/);
  });
});
