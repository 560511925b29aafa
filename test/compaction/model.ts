/**
 * The independent oracle for the compaction properties: what an Iceberg table must contain, kept as a plain
 * in-memory multiset of rows and updated from the operations alone (never from floe's reader).
 *
 * Semantics modelled (Iceberg spec, "Scan Planning" / equality deletes):
 *  - an append adds its rows;
 *  - an equality delete removes every row live at that moment whose key columns equal one of its keys —
 *    NULL equals NULL — and nothing appended afterwards (later rows have a higher sequence number);
 *  - compaction changes no row.
 * Values use the reader's representation (connectors/iceberg/values.ts): long → bigint, decimal → exact text
 * at the column's scale, string → string, missing → null.
 */

export type Value = bigint | string | null;

/** Column order of the test table (ids 1..5). */
export const COLUMNS = ['id', 'part', 'd', 's', 'v'] as const;
export type Column = (typeof COLUMNS)[number];
export type Row = readonly [
  id: bigint | null,
  part: string | null,
  d: string | null,
  s: string | null,
  v: bigint | null,
];

export const DECIMAL_SCALE = 10;

/** Unscaled integer → decimal text with exactly DECIMAL_SCALE fraction digits (no floating point). */
export function decimalText(unscaled: bigint, scale = DECIMAL_SCALE): string {
  const neg = unscaled < 0n;
  const digits = (neg ? -unscaled : unscaled).toString().padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
}

export function columnIndex(c: Column): number {
  return COLUMNS.indexOf(c);
}

/** Exact value equality (decimals are canonical text at one scale, so text equality is numeric equality). */
function same(a: Value, b: Value): boolean {
  return a === b;
}

/** A row as a stable, unambiguous string (for multiset comparison by sorting). */
export function canonicalRow(values: readonly unknown[]): string {
  return values
    .map((v) => {
      if (v === null || v === undefined) return 'NULL';
      if (typeof v === 'bigint') return `${v}n`;
      if (typeof v === 'string') return JSON.stringify(v);
      throw new Error(`unexpected value ${String(v)} (${typeof v}) in a test row`);
    })
    .join(',');
}

export function canonicalRows(rows: readonly (readonly unknown[])[]): string[] {
  return rows.map(canonicalRow).sort();
}

export class RowModel {
  private live: Row[] = [];

  rows(): readonly Row[] {
    return this.live;
  }

  append(rows: readonly Row[]): void {
    this.live.push(...rows);
  }

  /** Removes every live row whose `columns` equal one of `keys` (NULL = NULL). */
  deleteWhere(columns: readonly Column[], keys: readonly (readonly Value[])[]): number {
    const idx = columns.map(columnIndex);
    const before = this.live.length;
    this.live = this.live.filter((r) => !keys.some((k) => idx.every((c, i) => same(r[c]!, k[i]!))));
    return before - this.live.length;
  }

  /**
   * Removes the live rows with these `v` values — a deletion vector's rows, in histories where every written
   * row has a unique `v` (a position whose row is already deleted names no live row).
   */
  deleteByV(values: readonly bigint[]): number {
    const gone = new Set(values);
    const before = this.live.length;
    this.live = this.live.filter((r) => r[4] === null || !gone.has(r[4]));
    return before - this.live.length;
  }

  /** The expected scan result, canonical and sorted. */
  expected(): string[] {
    return canonicalRows(this.live);
  }
}
