/**
 * The read/merge half of a PK compaction rewrite (`MergeTreeCompactRewriter.rewriteCompaction`): the
 * candidate sections are read one after another (they do not overlap), the runs of a section are merged
 * by key (then `sequence.field`, `_SEQUENCE_NUMBER`, retract before add), each key goes through the
 * table's merge engine (merge-engines.ts) and — unlike a batch read — a retraction result is kept
 * unless `dropDelete` allows dropping it (`DropDeleteReader`).
 *
 * It shares the scan's file reader, run cursor and merge order; its own merge loop keeps retractions,
 * which a batch read drops. Values are projected onto the current schema by field id, so
 * compaction also migrates files of older schemas to the current one, as Java's rewriter does.
 */
import { FloeError } from '../../util/errors.js';
import { createMergeFunction, sequenceFields, type KeyValue, type MergeFunction } from './merge-engines.js';
import { DeletionVectors, RunCursor, mergeRuns, readKeyValues, recordOrder } from './scan.js';
import type { BucketDeletionVectors, LookupLevels } from './compact-dv.js';
import { fieldsByName, trimmedPrimaryKeyFields, type PaimonFile, type PaimonTable } from './table.js';
import type { PaimonField, PaimonType } from './types.js';

/**
 * Reads one data file as records in the current schema. Append files get kind +I and sequence 0. Rows
 * the file's deletion vector removes are skipped when `dvs` is given (a compaction must not bring them back).
 */
export function readFileRecords(table: PaimonTable, f: PaimonFile, dvs?: DeletionVectors): Promise<KeyValue[]> {
  const keyFields = table.schema.primaryKeys.length ? trimmedPrimaryKeyFields(table.schema) : [];
  return readKeyValues(table, f, table.schema.fields, keyFields, dvs, keyFields.length > 0);
}

export const hasLevel0 = (sections: readonly (readonly (readonly PaimonFile[])[])[]) =>
  sections.some((s) => s.some((run) => run.some((f) => f.meta.level === 0)));

/** What a lookup compaction (deletion-vector table, lookup changelog) needs while merging a bucket. */
export interface LookupMerge {
  levels: LookupLevels;
  /**
   * first-row (`FirstRowMergeFunctionWrapper`): level-0 records of a key that exists above the output
   * level are dropped (the first row is already there) instead of merged.
   */
  firstRow?: boolean;
  /** Deletion-vector tables only: a looked-up row is marked deleted here. */
  dvs?: BucketDeletionVectors;
}

/**
 * `LookupMergeFunction` + `LookupChangelogMergeFunctionWrapper` for one key: with records from levels >= 1
 * only the newest of them (lowest level) is merged with the level-0 records; with level-0 records only,
 * the key is looked up above the output level, and a hit joins the merge and is marked deleted.
 */
export function lookupResolver(lookup: LookupMerge): (group: KeyValue[]) => Promise<KeyValue[]> {
  return async (group) => {
    let high: KeyValue | undefined;
    for (const r of group) if (r.level > 0 && (!high || r.level < high.level)) high = r;
    if (lookup.firstRow) return high || !(await lookup.levels.lookup(group[0]!.key)) ? group : [];
    if (high) return group.filter((r) => r.level <= 0 || r === high);
    const hit = await lookup.levels.lookup(group[0]!.key);
    if (!hit) return group;
    lookup.dvs?.markDeleted(hit.file.meta.fileName, hit.position);
    return [...group, hit.kv];
  };
}

export interface MergeContext {
  keyTypes: PaimonType[];
  mf: MergeFunction;
  order: (a: KeyValue, b: KeyValue) => number;
  /** Deletion vectors of the input files (applied while reading). */
  dvs: DeletionVectors;
}

export function mergeContext(table: PaimonTable): MergeContext {
  const schema = table.schema;
  const keyTypes = trimmedPrimaryKeyFields(schema).map((f) => f.type);
  const byName = fieldsByName(schema);
  const seq = sequenceFields(schema.options).map((n) => {
    const f = byName.get(n);
    if (!f)
      throw new FloeError('Corrupt', `Paimon table ${table.location}: sequence.field '${n}' is not a column`, {
        context: { table: table.location },
      });
    return { idx: schema.fields.indexOf(f), type: f.type };
  });
  const descending = (schema.options['sequence.field.sort-order'] ?? 'ascending').trim().toLowerCase() === 'descending';
  const order = recordOrder(
    seq.map((x) => x.idx),
    seq.map((x) => x.type),
    descending,
  );
  return {
    keyTypes,
    mf: createMergeFunction(schema.fields as PaimonField[], schema.primaryKeys, schema.options, table.location),
    order,
    dvs: new DeletionVectors(table.io),
  };
}

/**
 * Merges the sections (each a list of sorted runs) in order. Yields the merged record of every key;
 * retractions only when `dropDelete` is false.
 */
export async function* mergeSections(
  table: PaimonTable,
  ctx: MergeContext,
  sections: readonly (readonly (readonly PaimonFile[])[])[],
  dropDelete: boolean,
  onFile: (f: PaimonFile, rows: number) => void = () => undefined,
  /** Deletion-vector tables: lookup merging (`rewriteLookupChangelog`: only when a level-0 file takes part). */
  lookup?: LookupMerge,
  /** Changelog producers: each key's records and merged result (compact-changelog.ts). */
  onMerged?: (records: readonly KeyValue[], merged: KeyValue | null) => void,
): AsyncGenerator<KeyValue> {
  const load = (f: PaimonFile) => readFileRecords(table, f, ctx.dvs);
  const withL0 = hasLevel0(sections);
  const resolve = lookup && withL0 ? lookupResolver(lookup) : undefined;
  for (const section of sections) {
    const cursors = section.map((run) => new RunCursor(run, load, onFile));
    yield* mergeRuns(cursors, ctx.keyTypes, ctx.mf, ctx.order, !dropDelete, resolve, onMerged);
  }
}
