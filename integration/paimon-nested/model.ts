/** The Java-written nested tables of the paimon-nested tests: columns, rows per commit, canonical lines. */
import { canonicalLine, type CanonicalRow, type PaimonChange } from '../oracles/index.js';

export const FIELDS = [
  { name: 'id', type: 'int' },
  { name: 'n', type: 'long' },
  { name: 'ai', type: { type: 'ARRAY', element: 'INT' } },
  { name: 'astr', type: { type: 'ARRAY NOT NULL', element: 'STRING NOT NULL' } },
  { name: 'm', type: { type: 'MAP', key: 'STRING', value: 'INT' } },
  {
    name: 'r',
    type: {
      type: 'ROW',
      fields: [
        { name: 'a', type: 'INT' },
        { name: 'b', type: { type: 'ARRAY', element: 'STRING' } },
      ],
    },
  },
  { name: 'ms', type: { type: 'MULTISET', element: 'STRING' } },
  {
    name: 'deep',
    type: {
      type: 'ARRAY',
      element: {
        type: 'MAP',
        key: 'STRING',
        value: {
          type: 'ROW',
          fields: [
            { name: 'x', type: 'INT NOT NULL' },
            { name: 't', type: 'TIMESTAMP(3)' },
            { name: 't9', type: 'TIMESTAMP(9)' },
          ],
        },
      },
    },
  },
  { name: 'ts6', type: 'TIMESTAMP(6)' },
  { name: 'ts9', type: 'TIMESTAMP(9)' },
  { name: 'tl9', type: 'TIMESTAMP(9) WITH LOCAL TIME ZONE' },
  { name: 't7', type: 'TIMESTAMP(7)' },
];
/**
 * What pypaimon 2.1 can be compared on: it cannot read a table with a MULTISET column at all
 * ("Unsupported data type: MULTISET<STRING>", even projected away), and it reads Java's own INT96
 * TIMESTAMP(7..9) values truncated to microseconds (merging primary keys that differ below the microsecond).
 * So the tables with those columns are checked with Java Paimon only.
 */
export const NOT_FOR_PYPAIMON = new Set(['ms', 'ts9', 'tl9', 't7']);
export const FIELDS_PY = FIELDS.filter((f) => !NOT_FOR_PYPAIMON.has(f.name)).map((f) =>
  f.name === 'deep'
    ? { name: 'deep', type: JSON.parse(JSON.stringify(f.type).replace(/,\{"name":"t9"[^}]*\}/, '')) }
    : f,
);
export const NESTED = ['ai', 'astr', 'm', 'r', 'ms', 'deep'];

/** `n` as `digits` fraction digits. */
const frac = (n: number, digits: number) => String(n).padStart(digits, '0').slice(-digits);

/** Row `id` as written in commit `c` (values vary with both; some nested members null). */
export function row(id: number, c: number): Record<string, unknown> {
  const k = id * 7 + c;
  return {
    id,
    n: String(1_000_000_000_000 + k),
    ai: k % 5 === 0 ? null : Array.from({ length: k % 4 }, (_, i) => (i === 1 && k % 3 === 0 ? null : k + i)),
    astr: Array.from({ length: (k % 3) + 1 }, (_, i) => `s${k}-${i}`),
    m:
      k % 6 === 1
        ? null
        : [
            [`k${k}`, k],
            ['z', k % 2 ? null : -k],
          ],
    r: k % 7 === 3 ? null : { a: k % 4 === 0 ? null : k, b: k % 2 ? [`b${k}`, null] : [] },
    ms:
      k % 4 === 2
        ? null
        : [
            [`e${k % 3}`, 1 + (k % 2)],
            ['f', 3],
          ],
    deep: [
      [
        [
          'd',
          {
            x: k,
            t: `2024-05-0${1 + (k % 9)}T10:11:12.${String(k % 1000).padStart(3, '0')}`,
            t9:
              k % 3
                ? `1965-03-0${1 + (k % 9)}T01:02:03.${String(k * 7919)
                    .padStart(9, '0')
                    .slice(-9)}`
                : null,
          },
        ],
      ],
      [],
    ],
    ts6: `2023-12-31T23:59:59.${String(k * 137)
      .padStart(6, '0')
      .slice(-6)}`,
    ts9: k % 5 === 4 ? null : `${k % 2 ? 1969 : 2024}-12-31T23:59:59.${frac(k * 104729, 9)}`,
    tl9: `2024-02-29T12:00:00.${frac(k * 15485863, 9)}Z`,
    t7: `1970-01-01T00:00:00.${frac(k * 31, 7)}`,
  };
}

export const commitsOf = (c: number, pk: boolean, fields: readonly { name: string }[]): PaimonChange[] => {
  const only = (r: Record<string, unknown>) =>
    Object.fromEntries(fields.map((f) => [f.name, r[f.name]])) as PaimonChange['row'];
  const out: PaimonChange[] = [];
  for (let i = 0; i < 6; i++) out.push({ kind: '+I', row: only(row(c * 3 + i, c)) });
  // updates and a delete of rows of earlier commits (primary-key table only)
  if (pk && c > 0) {
    out.push({ kind: '+U', row: only(row(c - 1, c + 10)) });
    out.push({ kind: '-D', row: only(row((c - 1) * 3 + 2, c - 1)) });
  }
  return out;
};

export const lines = (rows: CanonicalRow[]) => rows.map(canonicalLine).sort();
