/**
 * The one predicate compiler of `--where` / `self-optimizing.filter`, shared by every planner that narrows
 * files by it: the tiered, bin-pack, sort and full planners (Iceberg) and Paimon's bucket selection
 * (src/orchestration/compact-paimon.ts, partition columns only).
 *
 * `self-optimizing.filter`: a SQL-like predicate (Amoro: `op_time > '2007-12-03T10:15:30'`, `id > 8 AND
 * name = 'x'`) that limits which data files are optimized. Supported: comparisons (= == != <> < <= > >=),
 * IN / NOT IN, IS [NOT] NULL, AND / OR / NOT and parentheses; literals are quoted strings, numbers,
 * true/false. Timestamps and dates are written as ISO strings.
 *
 * A file is kept when its rows *might* match, judged like Iceberg's inclusive metrics evaluator: from an
 * identity partition value when the column is identity-partitioned, else from column bounds and null
 * counts; unknown statistics never exclude a file.
 */
import { didYouMean } from '../../../util/did-you-mean.js';
import { FloeError } from '../../../util/errors.js';
import type { DataFile, Field, FieldType, TableModel } from '../../../model/index.js';
import { currentSchema } from '../../../model/index.js';

type Value = string | number | bigint | boolean;
type CmpOp = 'lt' | 'lte' | 'gt' | 'gte' | 'eq' | 'neq';

type Node =
  | { k: 'and' | 'or'; l: Node; r: Node }
  | { k: 'not'; e: Node }
  | { k: 'cmp'; op: CmpOp; col: string; v: Value }
  | { k: 'in'; neg: boolean; col: string; vs: Value[] }
  | { k: 'null'; neg: boolean; col: string };

interface Tok {
  t: 'id' | 'str' | 'num' | 'op' | '(' | ')' | ',';
  v: string;
}

/**
 * A filter error. The filter reaches the planner as `self-optimizing.filter` (a table property, or `--where`
 * on the command line, which rewraps the message with its own name: context.reason is the message without
 * the prefix).
 */
function fail(filter: string, why: string): FloeError {
  return new FloeError('InvalidArgument', `self-optimizing.filter ${JSON.stringify(filter)}: ${why}`, {
    context: { property: 'self-optimizing.filter', value: filter, reason: why },
  });
}

function tokenize(s: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < s.length) {
    const c = s[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let v = '';
      for (;;) {
        if (j >= s.length) throw fail(s, 'unterminated string literal');
        if (s[j] === c && s[j + 1] === c) {
          v += c;
          j += 2;
        } else if (s[j] === c) break;
        else v += s[j++];
      }
      out.push({ t: 'str', v });
      i = j + 1;
    } else if (c === '`') {
      const j = s.indexOf('`', i + 1);
      if (j < 0) throw fail(s, 'unterminated quoted identifier');
      out.push({ t: 'id', v: s.slice(i + 1, j) });
      i = j + 1;
    } else if (c === '(' || c === ')' || c === ',') {
      out.push({ t: c, v: c });
      i++;
    } else if ('<>=!'.includes(c)) {
      const two = s.slice(i, i + 2);
      if (['<=', '>=', '<>', '!=', '=='].includes(two)) {
        out.push({ t: 'op', v: two });
        i += 2;
      } else if (c === '!') {
        throw fail(s, `unexpected '!' at ${i}`);
      } else {
        out.push({ t: 'op', v: c });
        i++;
      }
    } else {
      const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?)|^[A-Za-z_][A-Za-z0-9_.]*/.exec(s.slice(i));
      if (!m) throw fail(s, `unexpected character '${c}' at ${i}`);
      out.push({ t: /^[-\d]/.test(m[0]) ? 'num' : 'id', v: m[0] });
      i += m[0].length;
    }
  }
  return out;
}

function parse(filter: string): Node {
  const toks = tokenize(filter);
  let p = 0;
  const peek = () => toks[p];
  const kw = (w: string) => peek()?.t === 'id' && peek()!.v.toUpperCase() === w;
  const expect = (t: Tok['t'], what: string) => {
    const x = toks[p++];
    if (!x || x.t !== t) throw fail(filter, `expected ${what}`);
    return x;
  };
  const literal = (): Value => {
    const x = toks[p++];
    if (!x) throw fail(filter, 'expected a literal');
    if (x.t === 'str') return x.v;
    if (x.t === 'num') return /^-?\d+$/.test(x.v) ? BigInt(x.v) : Number(x.v);
    if (x.t === 'id' && /^(true|false)$/i.test(x.v)) return x.v.toLowerCase() === 'true';
    throw fail(filter, `expected a literal, got ${x.v}`);
  };
  const primary = (): Node => {
    if (peek()?.t === '(') {
      p++;
      const e = or();
      expect(')', "')'");
      return e;
    }
    if (kw('NOT')) {
      p++;
      return { k: 'not', e: primary() };
    }
    const col = expect('id', 'a column name').v;
    if (kw('IS')) {
      p++;
      const neg = kw('NOT');
      if (neg) p++;
      if (!kw('NULL')) throw fail(filter, 'expected NULL after IS');
      p++;
      return { k: 'null', neg, col };
    }
    let negIn = false;
    if (kw('NOT')) {
      p++;
      negIn = true;
      if (!kw('IN')) throw fail(filter, 'expected IN after NOT');
    }
    if (kw('IN')) {
      p++;
      expect('(', "'('");
      const vs: Value[] = [literal()];
      while (peek()?.t === ',') {
        p++;
        vs.push(literal());
      }
      expect(')', "')'");
      return { k: 'in', neg: negIn, col, vs };
    }
    const op = expect('op', 'a comparison operator').v;
    const map: Record<string, CmpOp> = {
      '<': 'lt',
      '<=': 'lte',
      '>': 'gt',
      '>=': 'gte',
      '=': 'eq',
      '==': 'eq',
      '!=': 'neq',
      '<>': 'neq',
    };
    return { k: 'cmp', op: map[op]!, col, v: literal() };
  };
  const and = (): Node => {
    let l = primary();
    while (kw('AND')) {
      p++;
      l = { k: 'and', l, r: primary() };
    }
    return l;
  };
  const or = (): Node => {
    let l = and();
    while (kw('OR')) {
      p++;
      l = { k: 'or', l, r: and() };
    }
    return l;
  };
  const e = or();
  if (p !== toks.length) throw fail(filter, `unexpected '${toks[p]!.v}'`);
  return e;
}

const NEG: Record<CmpOp, CmpOp> = { lt: 'gte', lte: 'gt', gt: 'lte', gte: 'lt', eq: 'neq', neq: 'eq' };

/** Pushes NOT down to the leaves, where the inclusive evaluation is sound. */
function pushNot(n: Node, neg = false): Node {
  switch (n.k) {
    case 'not':
      return pushNot(n.e, !neg);
    case 'and':
    case 'or': {
      const k = neg ? (n.k === 'and' ? 'or' : 'and') : n.k;
      return { k, l: pushNot(n.l, neg), r: pushNot(n.r, neg) };
    }
    case 'cmp':
      return neg ? { ...n, op: NEG[n.op] } : n;
    case 'in':
    case 'null':
      return neg ? { ...n, neg: !n.neg } : n;
  }
}

const EPOCH_DAY_MS = 86_400_000;

/** Converts a literal to the representation the model uses for the column's bounds. */
function coerce(filter: string, field: Field, v: Value): Value {
  const t: FieldType = field.type;
  if (t.kind !== 'primitive') throw fail(filter, `column ${field.name} is not a primitive column`);
  const bad = () => fail(filter, `literal ${String(v)} does not fit column ${field.name} (${t.name})`);
  switch (t.name) {
    case 'int':
    case 'long':
    case 'tinyint':
    case 'smallint':
      if (typeof v === 'bigint') return v;
      if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return BigInt(v.trim());
      throw bad();
    case 'float':
    case 'double':
    case 'decimal':
      if (typeof v === 'bigint') return Number(v);
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && Number.isFinite(Number(v))) return Number(v);
      throw bad();
    case 'date': {
      if (typeof v !== 'string') throw bad();
      const ms = Date.parse(`${v.slice(0, 10)}T00:00:00Z`);
      if (Number.isNaN(ms)) throw bad();
      return ms / EPOCH_DAY_MS;
    }
    case 'timestamp':
    case 'timestamptz':
    case 'timestamp_ns':
    case 'timestamptz_ns': {
      if (typeof v !== 'string') throw bad();
      const m = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(
        v.trim(),
      );
      if (!m) throw bad();
      const ms = Date.parse(`${m[1]}T${m[2] ?? '00:00:00'}${m[4] ?? 'Z'}`);
      if (Number.isNaN(ms)) throw bad();
      const frac = (m[3] ?? '.').slice(1).padEnd(9, '0');
      const nanos = BigInt(ms) * 1_000_000n + BigInt(frac);
      return t.name.endsWith('_ns') ? nanos : nanos / 1000n;
    }
    case 'boolean':
      if (typeof v === 'boolean') return v;
      throw bad();
    default:
      return typeof v === 'bigint' ? v.toString() : String(v);
  }
}

function cmp(a: unknown, b: Value): number | undefined {
  if (typeof a === 'bigint' || typeof b === 'bigint') {
    const toBig = (x: unknown): bigint | undefined =>
      typeof x === 'bigint' ? x : typeof x === 'number' && Number.isInteger(x) ? BigInt(x) : undefined;
    const x = toBig(a);
    const y = toBig(b);
    if (x !== undefined && y !== undefined) return x < y ? -1 : x > y ? 1 : 0;
    if (typeof a === 'number' || typeof b === 'number') {
      const fx = Number(a as number | bigint);
      const fy = Number(b as number | bigint);
      return fx < fy ? -1 : fx > fy ? 1 : 0;
    }
    return undefined;
  }
  if (typeof a === typeof b && (typeof a === 'number' || typeof a === 'string' || typeof a === 'boolean')) {
    const x = a as number | string | boolean;
    return x < b ? -1 : x > b ? 1 : 0;
  }
  return undefined;
}

interface ColumnFacts {
  /** Known exact value (identity partition); null = the column is null in every row. */
  exact?: { value: unknown };
  lower?: unknown;
  upper?: unknown;
  nulls?: number;
  values?: number;
}

function facts(f: DataFile, fieldId: number, identityIndex: Map<number, Map<number, number>>): ColumnFacts {
  const idx = identityIndex.get(f.specId)?.get(fieldId);
  if (idx !== undefined && idx < f.partition.length) return { exact: { value: f.partition[idx] ?? null } };
  const s = f.stats;
  const num = (x: bigint | undefined) => (x === undefined ? undefined : Number(x));
  return {
    lower: s?.lowerBounds?.get(fieldId),
    upper: s?.upperBounds?.get(fieldId),
    nulls: num(s?.nullValueCounts?.get(fieldId)),
    values: num(s?.valueCounts?.get(fieldId)),
  };
}

function mightMatch(
  n: Node,
  f: DataFile,
  cols: Map<string, { field: Field; vals: Map<Node, Value | Value[]> }>,
  ix: Map<number, Map<number, number>>,
): boolean {
  switch (n.k) {
    case 'and':
      return mightMatch(n.l, f, cols, ix) && mightMatch(n.r, f, cols, ix);
    case 'or':
      return mightMatch(n.l, f, cols, ix) || mightMatch(n.r, f, cols, ix);
    case 'not':
      return true; // removed by pushNot
    default:
      break;
  }
  const c = cols.get(n.col)!;
  const fc = facts(f, c.field.id, ix);
  if (n.k === 'null') {
    if (fc.exact) return (fc.exact.value === null) !== n.neg;
    if (!n.neg) return fc.nulls === undefined || fc.nulls > 0;
    return fc.nulls === undefined || fc.values === undefined || fc.nulls < fc.values;
  }
  const v = c.vals.get(n)!;
  if (fc.exact) {
    const x = fc.exact.value;
    if (x === null) return false;
    const test = (y: Value, op: CmpOp) => {
      const r = cmp(x, y);
      if (r === undefined) return true;
      return op === 'lt'
        ? r < 0
        : op === 'lte'
          ? r <= 0
          : op === 'gt'
            ? r > 0
            : op === 'gte'
              ? r >= 0
              : op === 'eq'
                ? r === 0
                : r !== 0;
    };
    if (n.k === 'in') {
      const hit = (v as Value[]).some((y) => test(y, 'eq'));
      return n.neg ? !hit || (v as Value[]).some((y) => cmp(x, y) === undefined) : hit;
    }
    return test(v as Value, n.op);
  }
  if (fc.nulls !== undefined && fc.values !== undefined && fc.nulls === fc.values) return false; // all null
  const lo = fc.lower;
  const hi = fc.upper;
  const loCmp = (y: Value) => (lo === undefined ? undefined : cmp(lo, y));
  const hiCmp = (y: Value) => (hi === undefined ? undefined : cmp(hi, y));
  const eqMight = (y: Value) => {
    const a = loCmp(y);
    const b = hiCmp(y);
    return (a === undefined || a <= 0) && (b === undefined || b >= 0);
  };
  const singleValue = (y: Value) => loCmp(y) === 0 && hiCmp(y) === 0 && fc.nulls === 0;
  if (n.k === 'in') return n.neg ? !(v as Value[]).some(singleValue) : (v as Value[]).some(eqMight);
  const y = v as Value;
  switch (n.op) {
    case 'lt': {
      const a = loCmp(y);
      return a === undefined || a < 0;
    }
    case 'lte': {
      const a = loCmp(y);
      return a === undefined || a <= 0;
    }
    case 'gt': {
      const b = hiCmp(y);
      return b === undefined || b > 0;
    }
    case 'gte': {
      const b = hiCmp(y);
      return b === undefined || b >= 0;
    }
    case 'eq':
      return eqMight(y);
    case 'neq':
      return !singleValue(y);
  }
}

/** Compiles the filter against the table's current schema; the result says whether a file might match. */
export function compileFilter(filter: string, table: TableModel): (f: DataFile) => boolean {
  const root = pushNot(parse(filter));
  const schema = currentSchema(table);
  const byName = new Map<string, Field>();
  for (const fl of schema.fields) byName.set(fl.name.toLowerCase(), fl);
  const cols = new Map<string, { field: Field; vals: Map<Node, Value | Value[]> }>();
  const visit = (n: Node): void => {
    if (n.k === 'and' || n.k === 'or') {
      visit(n.l);
      visit(n.r);
      return;
    }
    if (n.k === 'not') return visit(n.e);
    if (n.k !== 'cmp' && n.k !== 'in' && n.k !== 'null') return;
    const field = byName.get(n.col.toLowerCase());
    if (!field)
      throw fail(
        filter,
        `unknown column ${n.col}${didYouMean(
          n.col,
          schema.fields.map((f) => f.name),
        )}; the current schema of table ${table.location} has ${schema.fields.map((f) => f.name).join(', ')}`,
      );
    let c = cols.get(n.col);
    if (!c) cols.set(n.col, (c = { field, vals: new Map() }));
    if (n.k === 'cmp') c.vals.set(n, coerce(filter, field, n.v));
    else if (n.k === 'in')
      c.vals.set(
        n,
        n.vs.map((x) => coerce(filter, field, x)),
      );
  };
  visit(root);
  // spec id → source field id → position in the partition tuple, for identity transforms only.
  const identityIndex = new Map<number, Map<number, number>>();
  for (const spec of table.specs) {
    const m = new Map<number, number>();
    spec.fields.forEach((pf, i) => {
      if (pf.transform === 'identity') m.set(pf.sourceId, i);
    });
    identityIndex.set(spec.specId, m);
  }
  return (f) => mightMatch(root, f, cols, identityIndex);
}

/** The column names a filter refers to (as written), after checking its syntax. */
export function filterColumns(filter: string): string[] {
  const out = new Set<string>();
  const visit = (n: Node): void => {
    if (n.k === 'not') visit(n.e);
    else if (n.k === 'and' || n.k === 'or') {
      visit(n.l);
      visit(n.r);
    } else if ('col' in n) out.add(n.col);
  };
  visit(parse(filter));
  return [...out];
}
