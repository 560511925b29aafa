/**
 * Sort and z-order rewrites (Spark `rewrite_data_files` with `strategy => 'sort'`): the same file
 * selection and grouping as bin-pack (Spark's sort runner also plans with `SizeBasedFileRewritePlanner`),
 * each task carrying the row order its output is written in. The executor sorts a group's live rows
 * (external-sort.ts) before rolling them into target-size files.
 */
import type { TableModel } from '../../../model/index.js';
import { planBinpack } from './binpack/index.js';
import type { Plan } from './plan.js';
import type { BinpackOptions } from './policy.js';
import { describeRowOrder, resolveRowOrder, type RowOrder } from './sort-order.js';

export function planSorted(table: TableModel, options: BinpackOptions, order: RowOrder, nowMs: number): Plan {
  const plan = planBinpack(table, options, nowMs);
  const text = describeRowOrder(order);
  plan.tasks.forEach((t, i) => {
    t.id = `${order.kind}-${i + 1}`;
    t.order = order;
    t.trail.push({
      gate: 'order',
      detail: `rows written ${order.kind === 'zorder' ? 'z-ordered' : 'sorted'} by ${text}`,
      outcome: 'info',
      values: { strategy: order.kind, order: text },
    });
  });
  plan.trail.unshift({
    gate: 'strategy',
    detail:
      order.kind === 'zorder'
        ? `z-order by ${text} (var-length-contribution ${order.varLengthContribution}); files chosen and grouped as bin-pack does`
        : `sort by ${text}${order.sortOrderId ? ` (table sort order ${order.sortOrderId})` : ''}; files chosen and grouped as bin-pack does`,
    outcome: 'info',
    values: { strategy: order.kind, order: text, ...(order.kind === 'sort' ? { sortOrderId: order.sortOrderId } : {}) },
  });
  return plan;
}

/** Spark's z-order option: bytes of a string/binary value that take part in the interleave. */
export const VAR_LENGTH_CONTRIBUTION_KEY = 'var-length-contribution';

/** What `floe compact --strategy sort|zorder` asks for. */
export interface SortStrategyOptions {
  /** `--sort-order "a ASC NULLS FIRST, b DESC"` (or `zorder(a,b)`); default: the table's sort order. */
  sortOrder?: string;
  /** `--columns a,b` for z-order. */
  columns?: string[];
  /** `--sort-memory`: rows a task sorts in memory before spilling (default 256 MiB). */
  memoryBytes?: number;
  /** `--spill-dir` (default os.tmpdir()). */
  spillDir?: string;
}

/** The sort / z-order plan of `table` (`model` supplies the schema and sort orders when `table` is a filtered view). */
export function planSortStrategy(
  table: TableModel,
  strategy: 'sort' | 'zorder',
  request: SortStrategyOptions | undefined,
  props: Record<string, string>,
  options: BinpackOptions,
  nowMs: number,
): Plan {
  const schema =
    table.schemas.find((s) => s.schemaId === table.currentSchemaId) ?? table.schemas[table.schemas.length - 1]!;
  const v = props[VAR_LENGTH_CONTRIBUTION_KEY];
  const order = resolveRowOrder(
    {
      location: table.location,
      schema,
      ...(table.sortOrders ? { sortOrders: table.sortOrders } : {}),
      ...(table.defaultSortOrderId !== undefined ? { defaultSortOrderId: table.defaultSortOrderId } : {}),
    },
    {
      strategy,
      ...(request?.sortOrder !== undefined ? { sortOrder: request.sortOrder } : {}),
      ...(request?.columns !== undefined ? { columns: request.columns } : {}),
      ...(request?.memoryBytes !== undefined ? { memoryBytes: request.memoryBytes } : {}),
      ...(request?.spillDir !== undefined ? { spillDir: request.spillDir } : {}),
      ...(v !== undefined ? { varLengthContribution: Number(v) } : {}),
    },
  );
  return planSorted(table, options, order, nowMs);
}
