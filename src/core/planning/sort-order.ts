/**
 * Row orders for the sort and z-order rewrite strategies (Spark `rewrite_data_files` with
 * `strategy => 'sort'`, `sort_order => 'a ASC NULLS FIRST, b DESC'` or `'zorder(a,b)'`):
 * - parsed from the command line against the current schema, or taken from the table's default sort
 *   order (`sort-orders` / `default-sort-order-id`);
 * - resolved to field ids and Iceberg types, so the executor can find the columns in Arrow batches and the
 *   plan can be printed and stored as JSON.
 */
import { FloeError } from '../../../util/errors.js';
import type { Field, FieldType, Schema } from '../../../model/index.js';

export type SortDirection = 'asc' | 'desc';
export type NullOrder = 'nulls-first' | 'nulls-last';

/** One sort key: a (possibly nested struct) column, a transform, a direction and where nulls go. */
export interface SortTerm {
  /** Field ids from the top-level column down to the sorted field (struct nesting only). */
  path: number[];
  /** Dotted name, for messages. */
  name: string;
  type: FieldType;
  /** identity, year, month, day, hour, truncate[W]. */
  transform: string;
  direction: SortDirection;
  nullOrder: NullOrder;
}

interface OrderExecution {
  /** Rows a task keeps in memory before spilling a sorted run (bytes of Arrow data). */
  memoryBytes?: number;
  /** Where spilled runs go (default: os.tmpdir()). */
  spillDir?: string;
}

export type RowOrder =
  | (OrderExecution & {
      kind: 'sort';
      terms: SortTerm[];
      /** The table sort order the output follows, recorded as the files' sort_order_id; 0 = none of the table's. */
      sortOrderId: number;
    })
  | (OrderExecution & {
      kind: 'zorder';
      terms: SortTerm[];
      /** Bytes of a string/binary value that take part in the interleave (Spark `var-length-contribution`, 8). */
      varLengthContribution: number;
      /** The space-filling curve: z (Morton, default) or Hilbert (Paimon's `order_strategy=hilbert`; 8 bytes a column). */
      curve?: 'z' | 'hilbert';
    });

/** The parts of a table the order is resolved against (Iceberg metadata or the table model). */
export interface OrderSource {
  location: string;
  schema: Schema;
  sortOrders?: {
    orderId: number;
    fields: { sourceId: number; transform: string; direction: SortDirection; nullOrder: NullOrder }[];
  }[];
  defaultSortOrderId?: number;
}

export const DEFAULT_VAR_LENGTH_CONTRIBUTION = 8;

const TRANSFORM = /^(identity|year|month|day|hour|truncate\[(\d+)\])$/;

function bad(src: OrderSource, message: string): FloeError {
  return new FloeError('InvalidArgument', `table ${src.location}: ${message}`, { context: { table: src.location } });
}

/** Field ids from the top down to the field `id`, through structs only (list/map elements cannot be sort keys). */
function pathTo(fields: readonly Field[], id: number): { path: number[]; names: string[]; field: Field } | undefined {
  for (const f of fields) {
    if (f.id === id) return { path: [f.id], names: [f.name], field: f };
    if (f.type.kind === 'struct') {
      const inner = pathTo(f.type.fields, id);
      if (inner) return { path: [f.id, ...inner.path], names: [f.name, ...inner.names], field: inner.field };
    }
  }
  return undefined;
}

function byName(src: OrderSource, name: string): { path: number[]; names: string[]; field: Field } {
  let fields: readonly Field[] = src.schema.fields;
  const path: number[] = [];
  const names: string[] = [];
  let field: Field | undefined;
  for (const part of name.split('.')) {
    field = fields.find((f) => f.name === part) ?? fields.find((f) => f.name.toLowerCase() === part.toLowerCase());
    if (!field) throw bad(src, `sort column ${name} is not in the current schema`);
    path.push(field.id);
    names.push(field.name);
    fields = field.type.kind === 'struct' ? field.type.fields : [];
  }
  return { path, names, field: field! };
}

/** `given`: the order came from the command line (a bad transform is a usage error); else from the table's metadata. */
function checkSortable(src: OrderSource, name: string, type: FieldType, transform: string, given = true): void {
  if (type.kind !== 'primitive')
    throw bad(src, `column ${name} is a ${type.kind}; only primitive columns can be sort or z-order keys`);
  if (['variant', 'geometry', 'geography', 'unknown'].includes(type.name))
    throw bad(src, `column ${name} of type ${type.name} cannot be a sort key`);
  const m = TRANSFORM.exec(transform);
  if (!m) {
    const hint = given ? '' : `; the table's sort order uses it — give an order with --sort-order`;
    throw new FloeError(
      given ? 'InvalidArgument' : 'Unsupported',
      `table ${src.location}: sort transform ${transform} on ${name} is not supported (identity, year, month, day, hour and truncate[W] are)${hint}`,
      {
        context: { table: src.location, transform },
      },
    );
  }
  const temporal = ['date', 'timestamp', 'timestamptz', 'timestamp_ns', 'timestamptz_ns'];
  if (['year', 'month', 'day'].includes(transform) && !temporal.includes(type.name))
    throw bad(src, `${transform}(${name}) needs a date or timestamp column, not ${type.name}`);
  if (transform === 'hour' && !temporal.slice(1).includes(type.name))
    throw bad(src, `hour(${name}) needs a timestamp column, not ${type.name}`);
  if (m[2] !== undefined) {
    if (!['int', 'long', 'decimal', 'string', 'binary'].includes(type.name))
      throw bad(src, `truncate on ${name} needs an int, long, decimal, string or binary column, not ${type.name}`);
    if (Number(m[2]) <= 0) throw bad(src, `truncate width on ${name} must be positive`);
  }
}

/**
 * Parses Spark's sort order text: comma-separated `col [ASC|DESC] [NULLS FIRST|NULLS LAST]`, a column may be
 * wrapped in a transform (`day(ts)`, `truncate(name, 4)`). Spark's defaults: ASC, nulls first for ASC and
 * nulls last for DESC.
 */
export function parseSortOrder(src: OrderSource, text: string): SortTerm[] {
  const parts = splitTopLevel(text);
  if (parts.length === 0) throw bad(src, `--sort-order is empty`);
  return parts.map((part) => {
    const m = /^(.+?)(?:\s+(asc|desc))?(?:\s+nulls\s+(first|last))?$/i.exec(part.trim());
    if (!m)
      throw bad(src, `cannot read sort term "${part.trim()}" (expected "col [ASC|DESC] [NULLS FIRST|NULLS LAST]")`);
    const expr = m[1]!.trim();
    const direction: SortDirection = m[2]?.toLowerCase() === 'desc' ? 'desc' : 'asc';
    const nullOrder: NullOrder = m[3]
      ? m[3].toLowerCase() === 'first'
        ? 'nulls-first'
        : 'nulls-last'
      : direction === 'asc'
        ? 'nulls-first'
        : 'nulls-last';
    let transform = 'identity';
    let column = expr;
    const swapped = /^truncate\s*\(\s*(\d+)\s*,\s*([^,()]+?)\s*\)$/i.exec(expr);
    const call = swapped
      ? ['', 'truncate', swapped[2]!, swapped[1]!]
      : /^(\w+)\s*\(\s*([^,()]+?)\s*(?:,\s*(\d+)\s*)?\)$/.exec(expr);
    if (call) {
      const fn = call[1]!.toLowerCase();
      const name =
        { years: 'year', months: 'month', days: 'day', hours: 'hour', date: 'day', date_hour: 'hour' }[fn] ?? fn;
      column = call[2]!;
      if (name === 'truncate') {
        // Spark writes truncate(col, W); Iceberg's own text is truncate(W, col)
        const [x, y] = [call[2]!, call[3]];
        const width = y !== undefined ? y : undefined;
        if (width === undefined && !/^\d+$/.test(x)) throw bad(src, `truncate in "${expr}" needs a width`);
        column = width !== undefined ? x : '';
        if (width === undefined) throw bad(src, `truncate in "${expr}" needs a column`);
        transform = `truncate[${width}]`;
      } else {
        transform = name;
      }
    }
    column = column.replace(/^`(.*)`$/, '$1');
    const found = byName(src, column);
    const term: SortTerm = {
      path: found.path,
      name: found.names.join('.'),
      type: found.field.type,
      transform,
      direction,
      nullOrder,
    };
    checkSortable(src, term.name, term.type, transform);
    return term;
  });
}

/** `a, b` or `zorder(a, b)`: the z-order columns (identity only, at least one, no repeats). */
export function zorderTerms(src: OrderSource, columns: readonly string[]): SortTerm[] {
  if (columns.length === 0) throw bad(src, `z-order needs at least one column (--columns a,b)`);
  const seen = new Set<number>();
  return columns.map((c) => {
    const found = byName(src, c.trim());
    const id = found.path[found.path.length - 1]!;
    if (seen.has(id)) throw bad(src, `z-order column ${c} is listed twice`);
    seen.add(id);
    const term: SortTerm = {
      path: found.path,
      name: found.names.join('.'),
      type: found.field.type,
      transform: 'identity',
      direction: 'asc',
      nullOrder: 'nulls-first',
    };
    checkSortable(src, term.name, term.type, 'identity');
    return term;
  });
}

/** Spark's `zorder(a,b)` inside a sort order text, or undefined. */
export function zorderColumnsOf(text: string): string[] | undefined {
  const m = /^\s*zorder\s*\((.*)\)\s*$/i.exec(text);
  return m ? splitTopLevel(m[1]!).map((s) => s.trim()) : undefined;
}

/** The table's default sort order as terms; throws when the table is unsorted. */
export function tableSortOrder(src: OrderSource): { orderId: number; terms: SortTerm[] } {
  const order = src.sortOrders?.find((o) => o.orderId === (src.defaultSortOrderId ?? 0));
  if (!order || order.fields.length === 0) {
    throw bad(
      src,
      `the table has no sort order; give one with --sort-order "col [ASC|DESC] [NULLS FIRST|LAST], ..." or use --strategy zorder --columns a,b`,
    );
  }
  return { orderId: order.orderId, terms: termsOfOrder(src, order.fields) };
}

function termsOfOrder(src: OrderSource, fields: NonNullable<OrderSource['sortOrders']>[number]['fields']): SortTerm[] {
  return fields.map((f) => {
    const found = pathTo(src.schema.fields, f.sourceId);
    if (!found) throw bad(src, `sort order field ${f.sourceId} is not in the current schema`);
    const name = found.names.join('.');
    checkSortable(src, name, found.field.type, f.transform, false);
    return {
      path: found.path,
      name,
      type: found.field.type,
      transform: f.transform,
      direction: f.direction,
      nullOrder: f.nullOrder,
    };
  });
}

/** The id of a table sort order with exactly these terms (so files sorted so can say so), else 0. */
export function matchingOrderId(src: OrderSource, terms: readonly SortTerm[]): number {
  for (const o of src.sortOrders ?? []) {
    if (o.fields.length !== terms.length || o.fields.length === 0) continue;
    const same = o.fields.every((f, i) => {
      const t = terms[i]!;
      return (
        t.path[t.path.length - 1] === f.sourceId &&
        t.transform === f.transform &&
        t.direction === f.direction &&
        t.nullOrder === f.nullOrder
      );
    });
    if (same) return o.orderId;
  }
  return 0;
}

export interface OrderRequest {
  strategy: 'sort' | 'zorder';
  /** Sort order text; for `sort` it may also be `zorder(a,b)`. */
  sortOrder?: string;
  /** z-order columns. */
  columns?: readonly string[];
  memoryBytes?: number;
  spillDir?: string;
  varLengthContribution?: number;
}

/** The row order a sort / z-order rewrite of `src` writes. */
export function resolveRowOrder(src: OrderSource, req: OrderRequest): RowOrder {
  const exec: OrderExecution = {
    ...(req.memoryBytes !== undefined ? { memoryBytes: req.memoryBytes } : {}),
    ...(req.spillDir !== undefined ? { spillDir: req.spillDir } : {}),
  };
  if (req.memoryBytes !== undefined && !(Number.isFinite(req.memoryBytes) && req.memoryBytes > 0))
    throw bad(src, `sort memory must be a positive size`);
  const z =
    req.strategy === 'zorder'
      ? (req.columns ?? (req.sortOrder ? zorderColumnsOf(req.sortOrder) : undefined))
      : req.sortOrder
        ? zorderColumnsOf(req.sortOrder)
        : undefined;
  if (req.strategy === 'zorder' || z) {
    if (!z) throw bad(src, `--strategy zorder needs --columns a,b`);
    const v = req.varLengthContribution ?? DEFAULT_VAR_LENGTH_CONTRIBUTION;
    if (!Number.isInteger(v) || v <= 0 || v > 1024)
      throw bad(src, `var-length-contribution must be an integer in 1..1024, got ${v}`);
    return { kind: 'zorder', terms: zorderTerms(src, z), varLengthContribution: v, ...exec };
  }
  if (req.columns && req.columns.length > 0)
    throw bad(src, `--columns is for --strategy zorder; use --sort-order with --strategy sort`);
  if (req.sortOrder !== undefined) {
    const terms = parseSortOrder(src, req.sortOrder);
    return { kind: 'sort', terms, sortOrderId: matchingOrderId(src, terms), ...exec };
  }
  const t = tableSortOrder(src);
  return { kind: 'sort', terms: t.terms, sortOrderId: t.orderId, ...exec };
}

/** "a ASC NULLS FIRST, day(ts) DESC NULLS LAST" — the order as Spark would print it. */
export function describeRowOrder(order: RowOrder): string {
  if (order.kind === 'zorder')
    return `${order.curve === 'hilbert' ? 'hilbert' : 'zorder'}(${order.terms.map((t) => t.name).join(', ')})`;
  return order.terms
    .map((t) => {
      const col =
        t.transform === 'identity'
          ? t.name
          : t.transform.startsWith('truncate')
            ? `truncate(${t.name}, ${t.transform.slice(9, -1)})`
            : `${t.transform}(${t.name})`;
      return `${col} ${t.direction.toUpperCase()} ${t.nullOrder === 'nulls-first' ? 'NULLS FIRST' : 'NULLS LAST'}`;
    })
    .join(', ');
}

/** Splits on commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') out.push(cur);
  return out.filter((s) => s.trim() !== '');
}
