/**
 * Field aggregators of Paimon's `aggregation` merge engine (mergetree/compact/aggregate/Field*Agg).
 * Supported: sum, product, min, max, last_value, last_non_null_value, first_value, first_non_null_value
 * (alias first_not_null_value), listagg, bool_and, bool_or, and the implicit primary-key aggregator.
 * Retraction (-U/-D input) is supported where Paimon supports it (sum, product, last_value,
 * last_non_null_value, primary-key) or when `fields.<f>.ignore-retract=true`; otherwise it is an error,
 * as in Paimon. Anything else (collect, merge_map, sketches, bitmaps, nested_update …) is refused.
 */
import { FloeError } from '../../util/errors.js';
import { formatDecimal } from '../../model/arrow/decimal.js';
import { decimalToUnscaled } from './binary-row.js';
import type { PaimonType } from './types.js';
import { comparatorFor } from './values.js';

export interface FieldAggregator {
  readonly name: string;
  agg(acc: unknown, input: unknown): unknown;
  retract(acc: unknown, input: unknown): unknown;
  reset(): void;
}

export const SUPPORTED_AGGREGATES = [
  'sum',
  'product',
  'min',
  'max',
  'last_value',
  'last_non_null_value',
  'first_value',
  'first_non_null_value',
  'first_not_null_value',
  'listagg',
  'bool_and',
  'bool_or',
  'primary-key',
] as const;

const isNull = (v: unknown) => v === null || v === undefined;

function overflow(field: string, what: string): never {
  throw new FloeError('Corrupt', `aggregation of field ${field}: ${what} overflows`, { context: { field } });
}

const INT_RANGES: Record<string, [number, number]> = {
  TINYINT: [-128, 127],
  SMALLINT: [-32768, 32767],
  INT: [-2147483648, 2147483647],
};

/** Exact arithmetic in the field's type; `op` works on bigint (integers, decimal unscaled) or number. */
function arith(t: PaimonType, field: string, a: unknown, b: unknown, op: '+' | '-' | '*' | '/'): unknown {
  const apply = (x: bigint, y: bigint): bigint => {
    if (op === '/') {
      if (y === 0n)
        throw new FloeError('Corrupt', `aggregation of field ${field}: division by zero`, { context: { field } });
      return x / y;
    }
    return op === '+' ? x + y : op === '-' ? x - y : x * y;
  };
  switch (t.root) {
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT': {
      const r = Number(apply(BigInt(a as number), BigInt(b as number)));
      const [lo, hi] = INT_RANGES[t.root]!;
      if (r < lo || r > hi) overflow(field, `${t.root} ${String(a)} ${op} ${String(b)}`);
      return r;
    }
    case 'BIGINT': {
      const r = apply(BigInt(a as bigint), BigInt(b as bigint));
      if (r < -(2n ** 63n) || r >= 2n ** 63n) overflow(field, `BIGINT ${String(a)} ${op} ${String(b)}`);
      return r;
    }
    case 'FLOAT':
    case 'DOUBLE': {
      const x = Number(a);
      const y = Number(b);
      const r = op === '+' ? x + y : op === '-' ? x - y : op === '*' ? x * y : x / y;
      return t.root === 'FLOAT' ? Math.fround(r) : r;
    }
    case 'DECIMAL': {
      const s = t.scale ?? 0;
      const x = decimalToUnscaled(a, s);
      const y = decimalToUnscaled(b, s);
      const p = 10n ** BigInt(s);
      // products and quotients rescale back to the column's scale, truncating like BigDecimal's setScale(DOWN)
      const r =
        op === '*'
          ? (x * y) / p
          : op === '/'
            ? y === 0n
              ? overflow(field, 'division by zero')
              : (x * p) / y
            : apply(x, y);
      return formatDecimal(r, s);
    }
    default:
      throw new FloeError('Unsupported', `aggregate function on field ${field} does not support type ${t.root}`, {
        context: { field },
      });
  }
}

function noRetract(name: string, field: string): never {
  throw new FloeError(
    'Unsupported',
    `aggregate function '${name}' of field ${field} does not support retraction; set 'fields.${field}.ignore-retract'='true' to ignore retract messages`,
    { context: { field, function: name } },
  );
}

export function createAggregator(
  fn: string,
  field: string,
  type: PaimonType,
  options: Record<string, string>,
): FieldAggregator {
  const plain = (
    agg: (a: unknown, b: unknown) => unknown,
    retract?: (a: unknown, b: unknown) => unknown,
  ): FieldAggregator => ({
    name: fn,
    agg,
    retract: retract ?? (() => noRetract(fn, field)),
    reset() {},
  });
  const keepNonNull = (f: (a: unknown, b: unknown) => unknown) => (a: unknown, b: unknown) =>
    isNull(a) || isNull(b) ? (isNull(a) ? b : a) : f(a, b);
  const cmp = comparatorFor(type);
  let agg: FieldAggregator;
  switch (fn) {
    case 'sum':
      agg = plain(
        keepNonNull((a, b) => arith(type, field, a, b, '+')),
        (a, b) =>
          isNull(a) || isNull(b)
            ? isNull(a)
              ? isNull(b)
                ? null
                : arith(type, field, zeroOf(type), b, '-')
              : a
            : arith(type, field, a, b, '-'),
      );
      break;
    case 'product':
      agg = plain(
        keepNonNull((a, b) => arith(type, field, a, b, '*')),
        (a, b) => (isNull(a) || isNull(b) ? a : arith(type, field, a, b, '/')),
      );
      break;
    case 'max':
    case 'min':
      // Java's InternalRowUtils.compare throws "Incomparable type" for ARRAY/MAP/MULTISET/ROW (and BOOLEAN)
      if (['ARRAY', 'MAP', 'MULTISET', 'ROW'].includes(type.root))
        throw new FloeError(
          'Unsupported',
          `aggregate function '${fn}' of field ${field} does not support type ${type.root}`,
          {
            context: { field, function: fn },
          },
        );
      agg =
        fn === 'max'
          ? plain(keepNonNull((a, b) => (cmp(a, b) < 0 ? b : a)))
          : plain(keepNonNull((a, b) => (cmp(a, b) < 0 ? a : b)));
      break;

    case 'last_value':
      agg = plain(
        (_a, b) => b,
        () => null,
      );
      break;
    case 'last_non_null_value':
      agg = plain(
        (a, b) => (isNull(b) ? a : b),
        (a, b) => (isNull(b) ? a : null),
      );
      break;
    case 'primary-key':
      agg = plain(
        (_a, b) => b,
        (_a, b) => b,
      );
      break;
    case 'bool_and':
      agg = plain(keepNonNull((a, b) => Boolean(a) && Boolean(b)));
      break;
    case 'bool_or':
      agg = plain(keepNonNull((a, b) => Boolean(a) || Boolean(b)));
      break;
    case 'first_value':
    case 'first_non_null_value':
    case 'first_not_null_value': {
      const skipNulls = fn !== 'first_value';
      let initialized = false;
      agg = {
        name: fn,
        agg(a, b) {
          if (!initialized && (!skipNulls || !isNull(b))) {
            initialized = true;
            return b;
          }
          return a;
        },
        retract: () => noRetract(fn, field),
        reset() {
          initialized = false;
        },
      };
      break;
    }
    case 'listagg': {
      const delimiter = options[`fields.${field}.list-agg-delimiter`] ?? ',';
      const distinct = (options[`fields.${field}.distinct`] ?? 'false').toLowerCase() === 'true';
      const blank = (v: unknown) => isNull(v) || String(v).trim() === '';
      agg = plain((a, b) => {
        if (blank(b)) return a;
        if (blank(a)) return b;
        if (!distinct) return `${String(a)}${delimiter}${String(b)}`;
        const seen = new Set(String(a).split(delimiter));
        let out = String(a);
        for (const tok of String(b).split(delimiter)) {
          if (tok.trim() === '' || seen.has(tok)) continue;
          seen.add(tok);
          out += delimiter + tok;
        }
        return out;
      });
      break;
    }
    default:
      throw new FloeError(
        'Unsupported',
        `aggregate function '${fn}' of field ${field} is not supported (supported: ${SUPPORTED_AGGREGATES.join(', ')})`,
        { context: { field, function: fn } },
      );
  }
  if ((options[`fields.${field}.ignore-retract`] ?? 'false').toLowerCase() === 'true') {
    const inner = agg;
    return { name: inner.name, agg: (a, b) => inner.agg(a, b), retract: (a) => a, reset: () => inner.reset() };
  }
  return agg;
}

function zeroOf(t: PaimonType): unknown {
  if (t.root === 'BIGINT') return 0n;
  if (t.root === 'DECIMAL') return formatDecimal(0n, t.scale ?? 0);
  return 0;
}
