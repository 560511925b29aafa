/**
 * Which `-o key=value` keys `floe compact` understands, per table format. The lists come from where the
 * options are read (the planners' key tables), so a key floe does not read is refused instead of ignored.
 */
import { VAR_LENGTH_CONTRIBUTION_KEY } from '../../core/planning/sort-planner.js';
import { FloeError } from '../../../util/errors.js';
import { suggestName } from '../../../util/did-you-mean.js';
import { PAIMON_CATALOG_OPTION_KEYS } from '../../app/paimon-catalog.js';
import { BINPACK_KEYS, TIERED_KEYS } from '../../core/planning/policy.js';
import { UNIVERSAL_OPTION_KEYS } from '../../core/planning/universal/options.js';
import {
  STITCH_ENABLED,
  STITCH_ENCODINGS,
  STITCH_MIN_ROW_GROUP_BYTES,
} from '../../../connectors/formats/parquet/stitch-task.js';
import { REBASE_OPTION } from '../../../connectors/iceberg/rebase-deletes.js';

/**
 * Spark `rewrite_data_files` action options that are not planner options; the compact command reads them
 * itself (src/shells/cli/commands/compact.ts) as the equivalents of its flags.
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
  // append tables: DVs other writers add meanwhile are carried over unless false (connectors/paimon/dv-carry-over.ts)
  REBASE_OPTION,
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
    REBASE_OPTION,
  ]);
}

/** The closest known `-o` key (util/did-you-mean.ts). */
export const suggestKey = suggestName;

/** Refuses keys the given format does not read; names the other format when the key belongs to it. */
export function checkOptionKeys(options: Record<string, string>, format: OptionFormat): void {
  const known = knownOptionKeys(format);
  const other = knownOptionKeys(format === 'iceberg' ? 'paimon' : 'iceberg');
  for (const key of Object.keys(options)) {
    if (known.has(key)) continue;
    const name = format === 'iceberg' ? 'Iceberg' : 'Paimon';
    if (other.has(key)) {
      // the same setting often has a sibling name in the other format (target-file-size → …-bytes)
      const sibling = suggestName(key, known);
      throw new FloeError(
        'InvalidArgument',
        `-o ${key}: this option applies to ${format === 'iceberg' ? 'Paimon' : 'Iceberg'} tables; the table is ${name}${sibling ? ` — did you mean ${sibling}?` : ''}`,
        { context: { option: key, ...(sibling ? { suggestion: sibling } : {}) } },
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
