/**
 * "Did you mean …?" for a misspelt name (an option key, a column, a strategy, a preset): the closest known
 * name by edit distance, when it is close enough to be a typo, or a known name that the given one is the
 * tail or the head of ("target-size" → "self-optimizing.target-size", "target-file-size" →
 * "target-file-size-bytes"). One implementation for every such message.
 */

/** Edit distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_v, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

/** The closest known name, if it is close enough to be a typo (or the given name is its first or last segment). */
export function suggestName(name: string, known: Iterable<string>): string | undefined {
  const wanted = name.toLowerCase();
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(wanted, k.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  if (best !== undefined && bestD <= Math.max(2, Math.floor(name.length / 3))) return best;
  return [...known].find((k) => {
    const lk = k.toLowerCase();
    return lk.endsWith(`.${wanted}`) || lk.endsWith(`-${wanted}`) || lk.startsWith(`${wanted}-`);
  });
}

/** " (did you mean X?)" or "", to append to a message about an unknown name. */
export function didYouMean(name: string, known: Iterable<string>): string {
  const hint = suggestName(name, known);
  return hint !== undefined && hint !== name ? ` (did you mean ${hint}?)` : '';
}
