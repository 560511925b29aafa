/**
 * Equality-delete keys on one integer-like column (int, long, date, time, timestamps — the usual `id` key),
 * matched on the column's stored values instead of one text key per row: a data file's rows are checked
 * against the deleted keys straight from its Arrow buffers, with no JS value or string made per row.
 *
 * Exact: both sides are cast to the same Iceberg type first, and a value is compared as the integer it is
 * stored as. An int64 that fits in a double's 53-bit mantissa is keyed by its two words in a SafeIntSet
 * (4 or 8 bytes a key, util/safe-int-set.ts), any other as a bigint — the same rule on both sides, so two
 * keys meet exactly when their values are equal. NULL matches NULL, as in the text keys (rewrite-adapter.ts
 * exactKeyPart). Other key shapes keep the text keys.
 */
import type * as arrow from 'apache-arrow';
import type { Field } from '../../model/index.js';
import { SafeIntSet } from '../../util/safe-int-set.js';

const INTEGER_LIKE: ReadonlySet<string> = new Set([
  'int',
  'long',
  'date',
  'time',
  'timestamp',
  'timestamptz',
  'timestamp_ns',
  'timestamptz_ns',
]);

/** Whether equality keys over `fields` can be matched by IntKeySet (one integer-like column). */
export function intKeyable(fields: readonly Field[]): boolean {
  const f = fields[0];
  return fields.length === 1 && f!.type.kind === 'primitive' && INTEGER_LIKE.has(f!.type.name);
}

/** 2^21: an int64 whose high 32 bits lie in [-2^21, 2^21) is a safe integer (|v| < 2^53). */
const SAFE_HIGH = 0x200000;

/** The column's values, as 32-bit words (two per int64), or undefined for a layout this does not know. */
function words(d: arrow.Data): { ints: Int32Array; wide: boolean; longs?: BigInt64Array } | undefined {
  const v = d.values as unknown;
  if (d.stride !== 1 || d.children.length > 0 || d.valueOffsets) return undefined;
  if (v instanceof Int32Array) return { ints: v, wide: false };
  if (v instanceof BigInt64Array)
    return { ints: new Int32Array(v.buffer, v.byteOffset, v.length * 2), wide: true, longs: v };
  return undefined;
}

export class IntKeySet {
  private readonly numbers = new SafeIntSet();
  private readonly bigints = new Set<bigint>();
  private hasNull = false;

  get size(): number {
    return this.numbers.size + this.bigints.size + (this.hasNull ? 1 : 0);
  }

  /** Adds every value of a key column chunk; false (nothing added) when its layout is not an integer one. */
  add(d: arrow.Data): boolean {
    const w = words(d);
    if (!w) return false;
    const nulls = d.nullCount > 0;
    for (let i = 0; i < d.length; i++) {
      if (nulls && !d.getValid(i)) this.hasNull = true;
      else if (!w.wide) {
        const v = w.ints[i]!;
        this.numbers.add(v, v >> 31);
      } else {
        const hi = w.ints[2 * i + 1]!;
        if (hi >= -SAFE_HIGH && hi < SAFE_HIGH) this.numbers.add(w.ints[2 * i]!, hi);
        else this.bigints.add(w.longs![i]!);
      }
    }
    return true;
  }

  /**
   * Calls `hit(first + i)` for each row i of a key column chunk whose key is in the set; false (no call) when
   * its layout is not an integer one.
   */
  match(d: arrow.Data, first: number, hit: (pos: number) => void): boolean {
    const w = words(d);
    if (!w) return false;
    const nulls = d.nullCount > 0;
    const { numbers, bigints } = this;
    const anyBig = bigints.size > 0;
    for (let i = 0; i < d.length; i++) {
      let found: boolean;
      if (nulls && !d.getValid(i)) found = this.hasNull;
      else if (!w.wide) {
        const v = w.ints[i]!;
        found = numbers.has(v, v >> 31);
      } else {
        const hi = w.ints[2 * i + 1]!;
        if (hi >= -SAFE_HIGH && hi < SAFE_HIGH) found = numbers.has(w.ints[2 * i]!, hi);
        else found = anyBig && bigints.has(w.longs![i]!);
      }
      if (found) hit(first + i);
    }
    return true;
  }
}
