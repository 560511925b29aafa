/**
 * Issue 14.4: the sort used by `--strategy sort|zorder` — order (multi-column, DESC, null placement,
 * nested struct fields), the spill path (a tiny memory budget forces many sorted runs and a k-way merge)
 * giving exactly the rows and order of the in-memory sort, and no temporary file left afterwards,
 * whether the sort finishes, fails or is abandoned.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { arrowSchemaForIceberg, rowsFromArrow, tableFromRows } from '../../../connectors/formats/parquet/index.js';
import type { Field } from '../../../model/index.js';
import { externalSort, type SortInput } from '../../../src/core/execution/external-sort.js';
import { compareCodePoints, interleaveBits, zBytes } from '../../../src/core/execution/sort-keys.js';
import {
  parseSortOrder,
  resolveRowOrder,
  type OrderSource,
  type RowOrder,
} from '../../../src/core/planning/sort-order.js';

const FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'a', required: false, type: { kind: 'primitive', name: 'int' } },
  { id: 3, name: 's', required: false, type: { kind: 'primitive', name: 'string' } },
  { id: 4, name: 'x', required: false, type: { kind: 'primitive', name: 'double' } },
  {
    id: 5,
    name: 'n',
    required: false,
    type: {
      kind: 'struct',
      fields: [{ id: 6, name: 'k', required: false, type: { kind: 'primitive', name: 'long' } }],
    },
  },
];
const SCHEMA = arrowSchemaForIceberg(FIELDS);
const SRC: OrderSource = { location: 'mem://t', schema: { schemaId: 0, fields: FIELDS } };

type R = { id: bigint; a: number | null; s: string | null; x: number | null; n: { k: bigint | null } | null };

/** Deterministic pseudo-random rows with nulls and many ties. */
function makeRows(count: number, seed = 7): R[] {
  let state = seed;
  const rnd = (m: number) => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state % m;
  };
  const rows: R[] = [];
  for (let i = 0; i < count; i++) {
    rows.push({
      id: BigInt(i),
      a: rnd(6) === 0 ? null : rnd(20) - 10,
      s: rnd(7) === 0 ? null : `s${rnd(30)}`,
      x: rnd(9) === 0 ? null : (rnd(1000) - 500) / 7,
      n: rnd(10) === 0 ? null : { k: rnd(5) === 0 ? null : BigInt(rnd(50)) },
    });
  }
  return rows;
}

async function* source(rows: R[], batchRows: number): AsyncGenerator<SortInput> {
  for (let i = 0; i < rows.length; i += batchRows) {
    const part = rows.slice(i, i + batchRows);
    yield {
      table: tableFromRows(SCHEMA, part as unknown as Record<string, unknown>[]),
      estimatedBytes: part.length * 10,
    };
  }
}

async function collect(order: RowOrder, rows: R[], opts: Parameters<typeof externalSort>[3] = {}): Promise<R[]> {
  const out: R[] = [];
  for await (const b of externalSort(order, SCHEMA, source(rows, 37), opts)) {
    for (const r of rowsFromArrow(b.table, FIELDS)) out.push(r as unknown as R);
  }
  return out;
}

/** The test's own reference order (not the code under test): term = [getter, desc, nullsFirst]. */
type Ref = [(r: R) => number | bigint | string | null, boolean, boolean];
function refCompare(terms: Ref[]) {
  return (p: R, q: R): number => {
    for (const [get, desc, nullsFirst] of terms) {
      const x = get(p);
      const y = get(q);
      if (x === null && y === null) continue;
      if (x === null) return nullsFirst ? -1 : 1;
      if (y === null) return nullsFirst ? 1 : -1;
      if (x === y) continue;
      const c = x < y ? -1 : 1;
      return desc ? -c : c;
    }
    return 0;
  };
}

function assertSorted(rows: R[], cmp: (p: R, q: R) => number): void {
  for (let i = 1; i < rows.length; i++) {
    if (cmp(rows[i - 1]!, rows[i]!) > 0)
      throw new Error(
        `rows ${i - 1} and ${i} out of order: ${JSON.stringify(rows[i - 1], big)} > ${JSON.stringify(rows[i], big)}`,
      );
  }
}
const big = (_k: string, v: unknown) => (typeof v === 'bigint' ? `${v}` : v);
const ids = (rows: R[]) => rows.map((r) => r.id).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
function spillDir(): string {
  const d = mkdtempSync(path.join(tmpdir(), 'floe-sort-test-'));
  dirs.push(d);
  return d;
}

describe('sort order text', () => {
  it('reads Spark sort order syntax with its defaults', () => {
    const terms = parseSortOrder(SRC, 'a ASC NULLS FIRST, s desc, x NULLS LAST, n.k DESC NULLS FIRST, truncate(s, 2)');
    expect(terms.map((t) => [t.name, t.direction, t.nullOrder, t.transform])).toEqual([
      ['a', 'asc', 'nulls-first', 'identity'],
      ['s', 'desc', 'nulls-last', 'identity'], // Spark: DESC defaults to NULLS LAST
      ['x', 'asc', 'nulls-last', 'identity'],
      ['n.k', 'desc', 'nulls-first', 'identity'],
      ['s', 'asc', 'nulls-first', 'truncate[2]'],
    ]);
    expect(terms[3]!.path).toEqual([5, 6]);
  });

  it('refuses unknown columns, non-primitive keys, unsupported transforms and an unsorted table without an order', () => {
    expect(() => parseSortOrder(SRC, 'nope')).toThrow(/sort column nope is not in the current schema/);
    expect(() => parseSortOrder(SRC, 'n')).toThrow(/only primitive columns/);
    expect(() => parseSortOrder(SRC, 'bucket(id, 4)')).toThrow(/sort transform bucket on id is not supported/);
    expect(() => resolveRowOrder(SRC, { strategy: 'sort' })).toThrow(
      /table mem:\/\/t: the table has no sort order; give one with --sort-order/,
    );
    expect(() =>
      resolveRowOrder(
        { ...SRC, sortOrders: [{ orderId: 0, fields: [] }], defaultSortOrderId: 0 },
        { strategy: 'sort' },
      ),
    ).toThrow(/no sort order/);
    expect(() => resolveRowOrder(SRC, { strategy: 'zorder' })).toThrow(/needs --columns/);
    const bucketed: OrderSource = {
      ...SRC,
      sortOrders: [
        { orderId: 1, fields: [{ sourceId: 1, transform: 'bucket[4]', direction: 'asc', nullOrder: 'nulls-first' }] },
      ],
      defaultSortOrderId: 1,
    };
    expect(() => resolveRowOrder(bucketed, { strategy: 'sort' })).toThrow(
      /transform bucket\[4\] on id is not supported .*give an order with --sort-order/,
    );
    expect(() => resolveRowOrder(SRC, { strategy: 'zorder', columns: ['a', 'a'] })).toThrow(/listed twice/);
  });

  it('defaults to the table sort order and records its id; a matching explicit order gets the id too', () => {
    const src: OrderSource = {
      ...SRC,
      sortOrders: [
        { orderId: 0, fields: [] },
        { orderId: 3, fields: [{ sourceId: 2, transform: 'identity', direction: 'desc', nullOrder: 'nulls-last' }] },
      ],
      defaultSortOrderId: 3,
    };
    const o = resolveRowOrder(src, { strategy: 'sort' });
    expect(o).toMatchObject({
      kind: 'sort',
      sortOrderId: 3,
      terms: [{ name: 'a', direction: 'desc', nullOrder: 'nulls-last' }],
    });
    expect(resolveRowOrder(src, { strategy: 'sort', sortOrder: 'a DESC' })).toMatchObject({ sortOrderId: 3 });
    expect(resolveRowOrder(src, { strategy: 'sort', sortOrder: 'a DESC NULLS FIRST' })).toMatchObject({
      sortOrderId: 0,
    });
    expect(resolveRowOrder(src, { strategy: 'sort', sortOrder: 'zorder(a, s)' })).toMatchObject({
      kind: 'zorder',
      terms: [{ name: 'a' }, { name: 's' }],
    });
  });
});

describe('external sort', () => {
  const rows = makeRows(1500);
  const cases: [string, Ref[]][] = [
    [
      'a ASC NULLS FIRST, s DESC',
      [
        [(r) => r.a, false, true],
        [(r) => r.s, true, false],
      ],
    ],
    [
      'a DESC NULLS FIRST, x ASC NULLS LAST, id',
      [
        [(r) => r.a, true, true],
        [(r) => r.x, false, false],
        [(r) => r.id, false, true],
      ],
    ],
    [
      'n.k ASC NULLS LAST, s ASC NULLS LAST',
      [
        [(r) => (r.n === null ? null : r.n.k), false, false],
        [(r) => r.s, false, false],
      ],
    ],
  ];
  for (const [text, ref] of cases) {
    it(`sorts by ${text}, in memory and spilled alike`, async () => {
      const order = resolveRowOrder(SRC, { strategy: 'sort', sortOrder: text });
      const cmp = refCompare(ref);
      const mem = await collect(order, rows);
      expect(mem).toHaveLength(rows.length);
      expect(ids(mem)).toEqual(ids(rows));
      assertSorted(mem, cmp);
      // nulls where asked: first term's nulls at one end
      const firstNull = mem.findIndex((r) => ref[0]![0](r) === null);
      const lastNull = mem.length - 1 - [...mem].reverse().findIndex((r) => ref[0]![0](r) === null);
      if (ref[0]![2]) expect(firstNull).toBe(0);
      else expect(lastNull).toBe(mem.length - 1);

      const dir = spillDir();
      let spills = 0;
      let tempDir: string | undefined;
      const spilled = await collect(order, rows, {
        memoryBytes: 4096,
        chunkRows: 50,
        spillDir: dir,
        onSpill: () => spills++,
        onSpillDir: (d) => (tempDir = d),
      });
      expect(spills).toBeGreaterThan(5);
      console.log(`[sort] ${text}: ${rows.length} rows, ${spills} spilled runs merged`);
      expect(spilled.map((r) => JSON.stringify(r, big))).toEqual(mem.map((r) => JSON.stringify(r, big)));
      expect(tempDir && existsSync(tempDir)).toBe(false);
      expect(readdirSync(dir)).toEqual([]);
    });
  }

  it('is stable: ties keep their input order, also across spilled runs', async () => {
    const order = resolveRowOrder(SRC, { strategy: 'sort', sortOrder: 'a' });
    const out = await collect(order, rows, { memoryBytes: 2048, chunkRows: 16, spillDir: spillDir() });
    for (let i = 1; i < out.length; i++)
      if (out[i]!.a === out[i - 1]!.a) expect(out[i]!.id > out[i - 1]!.id).toBe(true);
  });

  it('removes its spill files when the consumer stops early (cancel) and when the source fails', async () => {
    const order = resolveRowOrder(SRC, { strategy: 'sort', sortOrder: 'x DESC' });
    const dir = spillDir();
    let tempDir: string | undefined;
    const ctrl = new AbortController();
    const gen = externalSort(order, SCHEMA, source(rows, 37), {
      memoryBytes: 2048,
      chunkRows: 20,
      spillDir: dir,
      signal: ctrl.signal,
      onSpillDir: (d) => (tempDir = d),
    });
    let seen = 0;
    await expect(
      (async () => {
        for await (const b of gen) {
          seen += b.table.numRows;
          if (seen > 100) ctrl.abort();
        }
      })(),
    ).rejects.toThrow(/aborted/);
    expect(tempDir).toBeDefined();
    expect(existsSync(tempDir!)).toBe(false);

    async function* failing(): AsyncGenerator<SortInput> {
      yield* source(rows.slice(0, 600), 37);
      throw new Error('read failed');
    }
    let tempDir2: string | undefined;
    await expect(
      (async () => {
        for await (const _ of externalSort(order, SCHEMA, failing(), {
          memoryBytes: 2048,
          spillDir: dir,
          onSpillDir: (d) => (tempDir2 = d),
        }))
          void _;
      })(),
    ).rejects.toThrow(/read failed/);
    expect(tempDir2).toBeDefined();
    expect(existsSync(tempDir2!)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('orders floats as Iceberg does (-0 before 0, NaN last) and strings by code point', async () => {
    const special: R[] = [NaN, 1, -0, 0, -Infinity, Infinity, -1].map((x, i) => ({
      id: BigInt(i),
      a: null,
      s: null,
      x,
      n: null,
    }));
    const out = await collect(resolveRowOrder(SRC, { strategy: 'sort', sortOrder: 'x' }), special);
    expect(out.map((r) => (Object.is(r.x, -0) ? '-0' : String(r.x)))).toEqual([
      '-Infinity',
      '-1',
      '-0',
      '0',
      '1',
      'Infinity',
      'NaN',
    ]);
    // U+1F600 (a surrogate pair in UTF-16) is above U+FFFD in code point (and UTF-8 byte) order
    expect(compareCodePoints('\u{1F600}', '\uFFFD')).toBeGreaterThan(0);
    expect(Buffer.compare(Buffer.from('\u{1F600}'), Buffer.from('\uFFFD'))).toBeGreaterThan(0);
  });
});

describe('z-order bytes', () => {
  it('interleaves bits most significant first, one column at a time', () => {
    // a = 1010 0000, b = 0110 0000 → a7 b7 a6 b6 a5 b5 a4 b4 = 1 0 0 1 1 1 0 0 | then zeros
    expect([...interleaveBits([Uint8Array.of(0b10100000), Uint8Array.of(0b01100000)])]).toEqual([0b10011100, 0]);
    expect([...interleaveBits([Uint8Array.of(0xff, 0xff), Uint8Array.of(0x00)])]).toEqual([
      0b10101010, 0b10101010, 0xff,
    ]);
  });

  it('maps values to bytes whose unsigned order is the value order', () => {
    const long = { kind: 'primitive', name: 'long' } as const;
    const dbl = { kind: 'primitive', name: 'double' } as const;
    const str = { kind: 'primitive', name: 'string' } as const;
    const check = <T>(
      values: T[],
      type: typeof long | typeof dbl | typeof str,
      width: number,
      cmp: (a: T, b: T) => number,
    ) => {
      const sorted = [...values].sort(cmp);
      const byBytes = [...values].sort((a, b) => Buffer.compare(zBytes(a, type, width), zBytes(b, type, width)));
      expect(byBytes).toEqual(sorted);
    };
    check([5n, -3n, 0n, -(1n << 62n), 1n << 62n, -1n], long, 8, (a, b) => (a < b ? -1 : a > b ? 1 : 0));
    check([2.5, -1e300, -0.5, 0, 7, -7, 1e-9], dbl, 8, (a, b) => a - b);
    check(['b', 'a', 'ab', '', 'ba'], str, 8, (a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect([...zBytes(null, long, 8)]).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
  });
});
