/**
 * Sort compaction of Paimon append tables, planning half: which tables it accepts (Paimon's SortCompactAction
 * rules, plus floe's refusal of primary-key tables), how the order is resolved from the flags, and that rows go
 * through the external sort (in memory and spilled) with their Paimon values unchanged and in key order —
 * checked against orders worked out here by plain comparison, not by the code under test.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  assertSortCompactable,
  paimonRowOrder,
  sortPaimonRows,
  type PaimonSortRequest,
} from '../../../src/orchestration/paimon-compact/sort-compact.js';
import type { PaimonTable } from '../../../connectors/paimon/table.js';
import type { PaimonField, PaimonType } from '../../../connectors/paimon/types.js';
import { describeRowOrder } from '../../../src/core/planning/sort-order.js';

const t = (root: PaimonType['root'], extra: Record<string, unknown> = {}): PaimonType =>
  ({ root, nullable: true, ...extra }) as PaimonType;

const FIELDS: PaimonField[] = [
  { id: 0, name: 'a', type: t('INT') },
  { id: 1, name: 'b', type: t('VARCHAR', { length: 2147483647 }) },
  { id: 2, name: 'c', type: t('BIGINT') },
  { id: 3, name: 'd', type: t('DECIMAL', { precision: 10, scale: 2 }) },
  { id: 4, name: 'ts', type: t('TIMESTAMP', { precision: 6 }) },
  { id: 5, name: 'bin', type: t('VARBINARY', { length: 2147483647 }) },
  { id: 6, name: 'r', type: { root: 'ROW', nullable: true, fields: [{ id: 7, name: 'x', type: t('INT') }] } },
  { id: 8, name: 'arr', type: { root: 'ARRAY', nullable: true, element: t('INT') } },
  { id: 9, name: 'f', type: t('DOUBLE') },
];

function table(options: Record<string, string> = { bucket: '-1' }, primaryKeys: string[] = []): PaimonTable {
  return {
    location: '/w/db.db/t',
    schema: {
      version: 3,
      id: 0,
      fields: FIELDS,
      highestFieldId: 9,
      partitionKeys: [],
      primaryKeys,
      options,
      timeMillis: 0,
      file: 'schema-0',
    },
    schemas: new Map(),
    files: [],
    indexEntries: [],
  } as unknown as PaimonTable;
}

const order = (req: PaimonSortRequest, options: Record<string, string> = {}) => paimonRowOrder(table(), req, options);

describe('which Paimon tables sort compaction takes', () => {
  it('bucket-unaware append tables (bucket = -1, also when the option is absent)', () => {
    expect(() => assertSortCompactable(table(), 'sort')).not.toThrow();
    expect(() => assertSortCompactable(table({}), 'zorder')).not.toThrow();
  });
  it('refuses primary-key tables, naming the key', () => {
    expect(() => assertSortCompactable(table({ bucket: '-1' }, ['a']), 'zorder')).toThrow(
      /primary key \(a\).*--strategy zorder is for append tables/,
    );
  });
  it('refuses fixed-bucket append tables, as Paimon does ("only supports bucket=-1")', () => {
    expect(() => assertSortCompactable(table({ bucket: '4', 'bucket-key': 'a' }), 'hilbert')).toThrow(
      /bucket=4; sort compaction needs a bucket-unaware table \(bucket = -1\)/,
    );
  });
});

describe('the row order of each strategy', () => {
  it('sort: Spark order text; plain columns are Paimon order (ASC, nulls first)', () => {
    expect(describeRowOrder(order({ strategy: 'sort', sortOrder: 'b, a' }))).toBe(
      'b ASC NULLS FIRST, a ASC NULLS FIRST',
    );
    expect(describeRowOrder(order({ strategy: 'sort', sortOrder: 'c DESC' }))).toBe('c DESC NULLS LAST');
    expect(() => order({ strategy: 'sort' })).toThrow(/no sort order; give one with --sort-order/);
  });
  it('zorder: the columns; var-length contribution from zorder.var-length-contribution', () => {
    const z = order({ strategy: 'zorder', columns: ['a', 'b'] }, { 'zorder.var-length-contribution': '4' });
    expect(z.kind === 'zorder' && z.varLengthContribution).toBe(4);
    expect(z.kind === 'zorder' && z.curve).toBeUndefined();
    expect(describeRowOrder(z)).toBe('zorder(a, b)');
  });
  it('hilbert: two columns at least (Paimon: "Hilbert sort needs at least two columns")', () => {
    const h = order({ strategy: 'hilbert', columns: ['a', 'c'] });
    expect(h.kind === 'zorder' && h.curve).toBe('hilbert');
    expect(describeRowOrder(h)).toBe('hilbert(a, c)');
    expect(() => order({ strategy: 'hilbert', columns: ['a'] })).toThrow(/at least two columns/);
    expect(() => order({ strategy: 'hilbert', columns: ['a', 'b'], sortOrder: 'a' })).toThrow(/takes --columns/);
  });
  it('refuses unknown columns, nested and non-primitive columns', () => {
    expect(() => order({ strategy: 'zorder', columns: ['nope'] })).toThrow(
      /sort column nope is not in the current schema/,
    );
    expect(() => order({ strategy: 'sort', sortOrder: 'r.x' })).toThrow(/inside a ROW/);
    expect(() => order({ strategy: 'zorder', columns: ['arr', 'a'] })).toThrow(/arr is a list/);
  });
});

// ------------------------------------------------------------------------------- rows through the sort

/** Deterministic rows of every column type, with nulls and duplicates. */
function rows(n: number): unknown[][] {
  let seed = 12345;
  const rnd = (m: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 4) % m;
  return Array.from({ length: n }, (_, i) => [
    rnd(10) === 0 ? null : rnd(50) - 25,
    rnd(10) === 0 ? null : ['é', 'a', 'b', '𝄞', 'aa', ''][rnd(6)]!,
    BigInt(rnd(1000)) * 10_000_000_000n - 5_000_000_000_000n,
    `${rnd(2) ? '-' : ''}${rnd(1000)}.${String(rnd(100)).padStart(2, '0')}`,
    BigInt(1_700_000_000_000_000 + rnd(1000) * 1_000_000),
    new Uint8Array([rnd(256), rnd(256)]),
    rnd(5) === 0 ? null : [rnd(9)],
    new Uint8Array([1, 2, 3, i & 255]),
    rnd(7) === 0 ? -0 : (rnd(100) - 50) / 4,
  ]);
}

let spillDirs = 0;
async function sorted(req: PaimonSortRequest, input: unknown[][], chunkRows?: number): Promise<unknown[][]> {
  const spilled: string[] = [];
  const o = paimonRowOrder(table(), req, {});
  const out: unknown[][] = [];
  async function* parts() {
    for (let i = 0; i < input.length; i += 100) yield { rows: input.slice(i, i + 100), estimatedBytes: 100 * 64 };
  }
  for await (const b of sortPaimonRows(table(), o, parts(), {
    ...(chunkRows ? { chunkRows } : {}),
    onSpillDir: (d) => spilled.push(d),
  }))
    out.push(...b);
  for (const d of spilled) expect(existsSync(d)).toBe(false);
  spillDirs += spilled.length;
  return out;
}

const key = (r: unknown[]) =>
  JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? [...v] : v));
const multiset = (rs: unknown[][]) => rs.map(key).sort();

describe('rows through the external sort', () => {
  const input = rows(700);
  it('order by a (nulls first), then b (code points): values unchanged, order as worked out by hand', async () => {
    const out = await sorted({ strategy: 'sort', sortOrder: 'a, b' }, input);
    expect(multiset(out)).toEqual(multiset(input));
    const cp = (s: string) => [...s].map((ch) => ch.codePointAt(0)!);
    const cmpStr = (x: string, y: string) => {
      const a = cp(x);
      const b = cp(y);
      for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
      return a.length - b.length;
    };
    for (let i = 1; i < out.length; i++) {
      const [a0, b0] = out[i - 1]!;
      const [a1, b1] = out[i]!;
      if (a0 !== a1) {
        expect(a0 === null || (a1 !== null && (a0 as number) < (a1 as number)), key(out[i]!)).toBe(true);
      } else if (b0 !== b1) {
        expect(b0 === null || (b1 !== null && cmpStr(b0 as string, b1 as string) < 0), key(out[i]!)).toBe(true);
      }
    }
    // bigint, decimal text, timestamps, bytes, nested arrays and -0 came through as they were
    expect(out.some((r) => Object.is(r[8], -0))).toBe(true);
    expect(out.every((r) => typeof r[2] === 'bigint' && r[5] instanceof Uint8Array)).toBe(true);
  });
  it('decimal by value, descending (decimal text compared as numbers, not as text)', async () => {
    const out = await sorted({ strategy: 'sort', sortOrder: 'd DESC' }, input);
    const vals = out.map((r) => Number(r[3]));
    for (let i = 1; i < vals.length; i++) expect(vals[i - 1]!).toBeGreaterThanOrEqual(vals[i]!);
  });
  it('spilled runs merge to the same result as an in-memory sort, for each strategy', async () => {
    for (const req of [
      { strategy: 'sort', sortOrder: 'c, ts' },
      { strategy: 'zorder', columns: ['a', 'c'] },
      { strategy: 'hilbert', columns: ['a', 'c', 'b'] },
    ] as PaimonSortRequest[]) {
      spillDirs = 0;
      const inMemory = await sorted(req, input);
      expect(spillDirs).toBe(0);
      const spilled = await sorted({ ...req, memoryBytes: 16 * 1024 }, input, 64);
      expect(spillDirs).toBe(1);
      expect(spilled.map(key)).toEqual(inMemory.map(key));
      expect(multiset(inMemory)).toEqual(multiset(input));
    }
  });
});
