/**
 * Typed comparison of Paimon values (the representation documented in binary-row.ts), as Paimon's
 * key comparators order them: numbers numerically, strings and binaries by unsigned UTF-8 / byte order,
 * decimals by value, nulls first.
 */
import { compareBytes, compareCodePoints } from '../../util/compare.js';
import { decimalToUnscaled } from './binary-row.js';
import type { PaimonType } from './types.js';

export type Comparator = (a: unknown, b: unknown) => number;

/** Code-point order, which equals UTF-8 byte order (JS `<` compares UTF-16 units, which does not). */
export const compareStrings = compareCodePoints;

function toNumberish(v: unknown): number | bigint {
  if (typeof v === 'number' || typeof v === 'bigint') return v;
  if (v instanceof Date) return v.getTime();
  if (typeof v === 'boolean') return v ? 1 : 0;
  return Number(v);
}

function cmpNum(a: unknown, b: unknown): number {
  const x = toNumberish(a);
  const y = toNumberish(b);
  if (typeof x === typeof y) return x < y ? -1 : x > y ? 1 : 0;
  // mixed number/bigint: compare exactly when the number is integral
  if (typeof x === 'number' && !Number.isInteger(x)) return x < Number(y) ? -1 : x > Number(y) ? 1 : 0;
  if (typeof y === 'number' && !Number.isInteger(y)) return Number(x) < y ? -1 : Number(x) > y ? 1 : 0;
  const bx = BigInt(x);
  const by = BigInt(y);
  return bx < by ? -1 : bx > by ? 1 : 0;
}

/** Untyped fallback: orders by the JS kind of value. */
export function compareAny(a: unknown, b: unknown): number {
  if (a === null || a === undefined) return b === null || b === undefined ? 0 : -1;
  if (b === null || b === undefined) return 1;
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (a instanceof Uint8Array && b instanceof Uint8Array) return compareBytes(a, b);
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = compareAny(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  }
  return cmpNum(a, b);
}

export function comparatorFor(t: PaimonType): Comparator {
  let inner: Comparator;
  switch (t.root) {
    case 'CHAR':
    case 'VARCHAR':
      inner = (a, b) => compareStrings(String(a), String(b));
      break;
    case 'BINARY':
    case 'VARBINARY':
    case 'BLOB':
      inner = (a, b) => compareBytes(a as Uint8Array, b as Uint8Array);
      break;
    case 'DECIMAL': {
      const scale = t.scale ?? 0;
      inner = (a, b) => {
        const x = decimalToUnscaled(a, scale);
        const y = decimalToUnscaled(b, scale);
        return x < y ? -1 : x > y ? 1 : 0;
      };
      break;
    }
    case 'BOOLEAN':
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DATE':
    case 'TIME':
    case 'TIMESTAMP':
    case 'TIMESTAMP_LTZ':
      inner = cmpNum;
      break;
    case 'ARRAY':
    case 'MAP':
    case 'MULTISET':
    case 'ROW':
      inner = nestedComparator(t);
      break;
    default:
      inner = compareAny;
  }
  return (a, b) => {
    const an = a === null || a === undefined;
    const bn = b === null || b === undefined;
    if (an || bn) return an && bn ? 0 : an ? -1 : 1;
    return inner(a, b);
  };
}

/**
 * Nested values (arrays, `Map`s in file order, ROW objects keyed by field name) compared member by member
 * with their typed comparators — used for equality (changelog row-deduplicate, first/last aggregates);
 * nested types are never keys and Paimon refuses them in min/max. Maps compare entry by entry in stored
 * order, so two maps that differ only in entry order count as different (a change is never dropped).
 */
function nestedComparator(t: PaimonType): Comparator {
  const seq = (elem: Comparator) => (a: readonly unknown[], b: readonly unknown[]) => {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const c = elem(a[i], b[i]);
      if (c) return c;
    }
    return a.length - b.length;
  };
  switch (t.root) {
    case 'ARRAY': {
      const s = seq(comparatorFor(t.element));
      return (a, b) => s(a as unknown[], b as unknown[]);
    }
    case 'MAP':
    case 'MULTISET': {
      const k = comparatorFor(t.root === 'MAP' ? t.key : t.element);
      const v = t.root === 'MAP' ? comparatorFor(t.value) : cmpNum;
      const entry = (x: unknown, y: unknown) => {
        const [xk, xv] = x as [unknown, unknown];
        const [yk, yv] = y as [unknown, unknown];
        return k(xk, yk) || v(xv, yv);
      };
      const s = seq(entry);
      const entries = (m: unknown) => (m instanceof Map ? [...m.entries()] : Object.entries(m as object));
      return (a, b) => s(entries(a), entries(b));
    }
    case 'ROW': {
      const fields = t.fields.map((f) => ({ name: f.name, cmp: comparatorFor(f.type) }));
      return (a, b) => {
        const x = a as Record<string, unknown>;
        const y = b as Record<string, unknown>;
        for (const f of fields) {
          const c = f.cmp(x[f.name], y[f.name]);
          if (c) return c;
        }
        return 0;
      };
    }
    default:
      return compareAny;
  }
}

/** Lexicographic comparator over rows of the given types. */
export function rowComparator(types: readonly PaimonType[]): (a: readonly unknown[], b: readonly unknown[]) => number {
  const cmps = types.map(comparatorFor);
  return (a, b) => {
    for (let i = 0; i < cmps.length; i++) {
      const c = cmps[i]!(a[i], b[i]);
      if (c !== 0) return c;
    }
    return 0;
  };
}
