/**
 * Bin packing as Iceberg's `BinPacking.ListPacker` does it, without its quadratic cost:
 * - `firstFitPack` = unlimited look-back (Amoro's task splitter): an item joins the first bin, in
 *   creation order, whose weight + item ≤ capacity (and below the item-count cap), else opens a new
 *   bin. A segment tree over the bins' remaining capacity finds that bin in O(log n).
 * - `sequentialPack` = look-back 1 (Iceberg's rewrite planners): only the newest bin is open.
 * A new bin always takes its first item, so an item heavier than the capacity sits alone.
 */

export function firstFitPack<T>(
  items: readonly T[],
  weight: (item: T) => number,
  capacity: number,
  maxItemsPerBin = Number.POSITIVE_INFINITY,
): T[][] {
  const n = items.length;
  if (n === 0) return [];
  let size = 1;
  while (size < n) size <<= 1;
  // tree[i] = max remaining capacity in the subtree; absent bins are -Infinity.
  const tree = new Float64Array(2 * size).fill(Number.NEGATIVE_INFINITY);
  const bins: T[][] = [];
  const counts: number[] = [];
  const set = (bin: number, remaining: number) => {
    let i = bin + size;
    tree[i] = remaining;
    for (i >>= 1; i >= 1; i >>= 1) tree[i] = Math.max(tree[2 * i]!, tree[2 * i + 1]!);
  };
  const remainingOf = (bin: number) => tree[bin + size]!;
  for (const item of items) {
    const w = weight(item);
    let bin = -1;
    if (tree[1]! >= w) {
      let i = 1;
      while (i < size) i = tree[2 * i]! >= w ? 2 * i : 2 * i + 1;
      bin = i - size;
    }
    if (bin < 0) {
      bin = bins.length;
      bins.push([item]);
      counts.push(1);
      set(bin, counts[bin]! >= maxItemsPerBin ? Number.NEGATIVE_INFINITY : capacity - w);
    } else {
      bins[bin]!.push(item);
      counts[bin]! += 1;
      set(bin, counts[bin]! >= maxItemsPerBin ? Number.NEGATIVE_INFINITY : remainingOf(bin) - w);
    }
  }
  return bins;
}

export function sequentialPack<T>(
  items: readonly T[],
  weight: (item: T) => number,
  capacity: number,
  maxItemsPerBin = Number.POSITIVE_INFINITY,
): T[][] {
  const bins: T[][] = [];
  let current: T[] | undefined;
  let used = 0;
  for (const item of items) {
    const w = weight(item);
    if (current && used + w <= capacity && current.length < maxItemsPerBin) {
      current.push(item);
      used += w;
    } else {
      current = [item];
      used = w;
      bins.push(current);
    }
  }
  return bins;
}
