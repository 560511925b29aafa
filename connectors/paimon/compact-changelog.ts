/**
 * Changelog produced by compaction. `changelog-producer=lookup`: see `lookupChangelog`.
 * `changelog-producer=full-compaction`
 * (`FullChangelogMergeTreeCompactRewriter` + `FullChangelogMergeFunctionWrapper`): only a compaction whose
 * output is the max level produces changelog; per key, the record already at the max level is the state
 * before and the merged record the state after:
 *
 *   no max-level record, merged is an add  → +I merged
 *   max-level record, merged is a retract  → -D before
 *   max-level record, merged is an add     → -U before, +U merged (unless `changelog-producer.row-deduplicate`
 *                                            finds the values equal)
 *   a key with one record only: +I when it is an add not yet at the max level, else nothing.
 *
 * Files upgraded into the max level are read for changelog too (every add becomes +I: it was never at the
 * max level). Changelog files are written like data files (prefix `changelog-`, level = output level,
 * file source APPEND) and committed in the snapshot's changelog manifest list.
 */
import { FloeError } from '../../util/errors.js';
import {
  isRetract,
  ROW_KIND_DELETE,
  ROW_KIND_INSERT,
  ROW_KIND_UPDATE_AFTER,
  ROW_KIND_UPDATE_BEFORE,
  type KeyValue,
} from './merge-engines.js';
import type { PaimonTable } from './table.js';
import { comparatorFor } from './values.js';
import type { PaimonField } from './types.js';

export type ChangelogProducer = 'none' | 'input' | 'lookup' | 'full-compaction';

export function changelogProducerOf(o: Record<string, string>): ChangelogProducer {
  const p = (o['changelog-producer'] ?? 'none').trim().toLowerCase();
  return p === 'input' || p === 'lookup' || p === 'full-compaction' ? p : 'none';
}

const as = (kind: number, kv: KeyValue): KeyValue => ({ ...kv, kind });

/** Value equality for `changelog-producer.row-deduplicate` (field by field, nulls equal to nulls). */
function valueEqualiser(fields: readonly PaimonField[]): (a: readonly unknown[], b: readonly unknown[]) => boolean {
  const cmps = fields.map((f) => comparatorFor(f.type));
  return (a, b) =>
    cmps.every((c, i) => {
      const x = a[i] ?? null;
      const y = b[i] ?? null;
      return x === null || y === null ? x === y : c(x, y) === 0;
    });
}

/** Refuses changelog options floe's producer does not honour. */
export function assertChangelogCompactable(table: PaimonTable): void {
  const o = table.schema.options;
  const loc = table.location;
  for (const k of [
    'changelog-producer.row-deduplicate-ignore-fields',
    'changelog-file.format',
    'changelog-file.compression',
  ]) {
    if (o[k] !== undefined && !(k === 'changelog-file.format' && o[k] === (o['file.format'] ?? 'parquet')))
      throw new FloeError(
        'Unsupported',
        `cannot compact Paimon table ${loc}: ${k} is set; floe writes changelog files like data files`,
        {
          context: { table: loc, option: k, value: o[k] },
        },
      );
  }
}

/**
 * `LookupChangelogMergeFunctionWrapper.setChangelog` for one key (`changelog-producer=lookup`): only keys
 * with level-0 records produce changelog; "before" is the newest record above level 0 — from the unit or
 * looked up above the output level (lookupResolver puts it into `records`) — and "after" the merged one.
 */
export function lookupChangelog(
  table: PaimonTable,
): (records: readonly KeyValue[], merged: KeyValue | null) => KeyValue[] {
  if ((table.schema.options['merge-engine'] ?? 'deduplicate').trim().toLowerCase() === 'first-row') {
    // FirstRowMergeFunctionWrapper: a key new to the table (no record above level 0, none looked up —
    // lookupResolver drops those) gives +I of its first row; nothing else changes
    return (records, merged) => (merged && !records.some((r) => r.level > 0) ? [as(ROW_KIND_INSERT, merged)] : []);
  }
  const dedupe =
    (table.schema.options['changelog-producer.row-deduplicate'] ?? 'false').trim().toLowerCase() === 'true';
  const equal = dedupe ? valueEqualiser(table.schema.fields) : undefined;
  return (records, merged) => {
    if (!merged || !records.some((r) => r.level === 0)) return [];
    let before: KeyValue | undefined;
    for (const r of records) if (r.level > 0 && (!before || r.level < before.level)) before = r;
    if (!before || isRetract(before.kind)) return isRetract(merged.kind) ? [] : [as(ROW_KIND_INSERT, merged)];
    if (isRetract(merged.kind)) return [as(ROW_KIND_DELETE, before)];
    if (equal?.(before.value, merged.value)) return [];
    return [as(ROW_KIND_UPDATE_BEFORE, before), as(ROW_KIND_UPDATE_AFTER, merged)];
  };
}

/** `FullChangelogMergeFunctionWrapper` for one key: the changelog records (in file order). */
export function fullCompactionChangelog(
  table: PaimonTable,
  maxLevel: number,
): (records: readonly KeyValue[], merged: KeyValue | null) => KeyValue[] {
  const dedupe =
    (table.schema.options['changelog-producer.row-deduplicate'] ?? 'false').trim().toLowerCase() === 'true';
  const equal = dedupe ? valueEqualiser(table.schema.fields) : undefined;
  return (records, merged) => {
    const top = records.find((r) => r.level === maxLevel);
    if (records.length === 1) {
      const only = records[0]!;
      return !top && !isRetract(only.kind) ? [as(ROW_KIND_INSERT, only)] : [];
    }
    if (!merged) return [];
    if (!top) return isRetract(merged.kind) ? [] : [as(ROW_KIND_INSERT, merged)];
    if (isRetract(merged.kind)) return [as(ROW_KIND_DELETE, top)];
    if (equal?.(top.value, merged.value)) return [];
    return [as(ROW_KIND_UPDATE_BEFORE, top), as(ROW_KIND_UPDATE_AFTER, merged)];
  };
}
