/**
 * Dropping deleted rows from an Arrow table without touching values: the kept rows are cut into
 * contiguous ranges and each range is a zero-copy slice. Exact for every type (decimals, nested, int64),
 * and cheap because deletes are usually sparse.
 */
import * as arrow from 'apache-arrow';

/** Rows [0, numRows) minus `deleted` (positions relative to the table's first row) as [start, end) ranges. */
export function keptRanges(numRows: number, deleted: (pos: number) => boolean): [number, number][] {
  const ranges: [number, number][] = [];
  let start = -1;
  for (let i = 0; i < numRows; i++) {
    if (deleted(i)) {
      if (start >= 0) ranges.push([start, i]);
      start = -1;
    } else if (start < 0) {
      start = i;
    }
  }
  if (start >= 0) ranges.push([start, numRows]);
  return ranges;
}

export function dropRows(table: arrow.Table, deleted: (pos: number) => boolean): arrow.Table {
  const ranges = keptRanges(table.numRows, deleted);
  if (ranges.length === 1 && ranges[0]![0] === 0 && ranges[0]![1] === table.numRows) return table;
  if (ranges.length === 0) return table.slice(0, 0);
  const batches = ranges.flatMap(([s, e]) => table.slice(s, e).batches);
  return new arrow.Table(table.schema, batches);
}
