/**
 * Which `-o key=value` keys `floe compact` understands, per table format. The lists come from where the
 * options are read (the planners' key tables), so a key floe does not read is refused instead of ignored.
 */
import { VAR_LENGTH_CONTRIBUTION_KEY } from '../planning/sort-planner.js';
import { FloeError } from '../errors.js';
import { PAIMON_CATALOG_OPTION_KEYS } from '../app/paimon-catalog.js';
import { BINPACK_KEYS, TIERED_KEYS } from '../planning/policy.js';
import { UNIVERSAL_OPTION_KEYS } from '../planning/universal/options.js';
import {
  STITCH_ENABLED,
  STITCH_ENCODINGS,
  STITCH_MIN_ROW_GROUP_BYTES,
} from '../../connectors/formats/parquet/stitch-task.js';

/**
 * Spark `rewrite_data_files` action options that are not planner options; the compact command reads them
 * itself (src/cli/commands/compact.ts) as the equivalents of its flags.
 */
export const SPARK_ACTION_KEYS = Object.freeze({
  partialProgress: 'partial-progress.enabled',
  maxConcurrent: 'max-concurrent-file-group-rewrites',
  removeDanglingDeletes: 'remove-dangling-deletes',
});

/**
 * Paimon options the compaction job reads besides the universal picker's (src/orchestration/compact-paimon.ts:
 * target file size, the append-table picker's window and small-file ratio).
 */
export const PAIMON_COMPACTION_KEYS: readonly string[] = Object.freeze([
  'target-file-size',
  'compaction.min.file-num',
  'compaction.small-file-ratio',
  // [sort] Paimon sort compaction (--strategy zorder): bytes of a string/binary value in the z-value
  'zorder.var-length-contribution',
]);

export type OptionFormat = 'iceberg' | 'paimon';

export function knownOptionKeys(format: OptionFormat): ReadonlySet<string> {
  if (format === 'paimon')
    return new Set([...UNIVERSAL_OPTION_KEYS, ...PAIMON_COMPACTION_KEYS, ...PAIMON_CATALOG_OPTION_KEYS]);
  return new Set([
    ...Object.values(TIERED_KEYS),
    ...Object.values(BINPACK_KEYS),
    ...Object.values(SPARK_ACTION_KEYS),
    STITCH_ENABLED,
    STITCH_MIN_ROW_GROUP_BYTES,
    STITCH_ENCODINGS,
    'write.parquet.row-group-size-bytes',
    VAR_LENGTH_CONTRIBUTION_KEY, // [sort] z-order
  ]);
}

/** Edit distance (insertions, deletions, substitutions), for "did you mean". */
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

/** The closest known key, if it is close enough to be a typo (or shares the last segment). */
export function suggestKey(key: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const d = editDistance(key.toLowerCase(), k);
    if (d < bestD) {
      bestD = d;
      best = k;
    }
  }
  if (best !== undefined && bestD <= Math.max(2, Math.floor(key.length / 3))) return best;
  // "target-size" → self-optimizing.target-size: the user's key is the tail of a known one
  const tail = [...known].find((k) => k.endsWith(`.${key.toLowerCase()}`) || k.endsWith(`-${key.toLowerCase()}`));
  return tail;
}

/** Refuses keys the given format does not read; names the other format when the key belongs to it. */
export function checkOptionKeys(options: Record<string, string>, format: OptionFormat): void {
  const known = knownOptionKeys(format);
  const other = knownOptionKeys(format === 'iceberg' ? 'paimon' : 'iceberg');
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue;
    const name = format === 'iceberg' ? 'Iceberg' : 'Paimon';
    if (other.has(key)) {
      throw new FloeError(
        'InvalidArgument',
        `-o ${key}: this option applies to ${format === 'iceberg' ? 'Paimon' : 'Iceberg'} tables; the table is ${name}`,
        { context: { option: key } },
      );
    }
    const hint = suggestKey(key, known);
    throw new FloeError(
      'InvalidArgument',
      `-o ${key}: unknown option for ${name} compaction${hint ? ` — did you mean ${hint}?` : ''} (floe compact --help lists where the known options come from)`,
      { context: { option: key, ...(hint ? { suggestion: hint } : {}) } },
    );
  }
}
