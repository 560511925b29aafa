/**
 * Paimon merge engines: how the records of one primary key, in merge order (oldest first), become the
 * visible row (mergetree/compact/{Deduplicate,FirstRow,PartialUpdate}MergeFunction,
 * aggregate/AggregateMergeFunction). As in `ReducerMergeFunctionWrapper`, a key with a single record
 * passes through untouched. A result whose kind is a retraction (-U/-D) is not visible to a batch read.
 */
import { FloeError } from '../../util/errors.js';
import { createAggregator, type FieldAggregator } from './aggregates.js';
import type { PaimonField } from './types.js';

export const ROW_KIND_INSERT = 0;
export const ROW_KIND_UPDATE_BEFORE = 1;
export const ROW_KIND_UPDATE_AFTER = 2;
export const ROW_KIND_DELETE = 3;

export const isRetract = (kind: number) => kind === ROW_KIND_UPDATE_BEFORE || kind === ROW_KIND_DELETE;

export interface KeyValue {
  key: unknown[];
  sequenceNumber: bigint;
  /** RowKind byte: 0 +I, 1 -U, 2 +U, 3 -D. */
  kind: number;
  /** Values in read-schema order. */
  value: unknown[];
  /** LSM level of the file it came from. */
  level: number;
}

export interface MergeFunction {
  /** Merges the records of one key, oldest first; null when nothing survives. */
  merge(records: readonly KeyValue[]): KeyValue | null;
}

const bool = (options: Record<string, string>, key: string, ...fallbacks: string[]) => {
  for (const k of [key, ...fallbacks]) {
    const v = options[k];
    if (v !== undefined) return v.trim().toLowerCase() === 'true';
  }
  return false;
};

export function ignoreDelete(options: Record<string, string>): boolean {
  return bool(
    options,
    'ignore-delete',
    'first-row.ignore-delete',
    'deduplicate.ignore-delete',
    'partial-update.ignore-delete',
  );
}

export function sequenceFields(options: Record<string, string>): string[] {
  const v = options['sequence.field'];
  return v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : [];
}

function reducer(inner: (records: readonly KeyValue[]) => KeyValue | null): MergeFunction {
  return { merge: (records) => (records.length === 1 ? records[0]! : records.length === 0 ? null : inner(records)) };
}

export function deduplicate(options: Record<string, string>): MergeFunction {
  const ignore = ignoreDelete(options);
  return reducer((records) => {
    let latest: KeyValue | null = null;
    for (const kv of records) {
      if (ignore && isRetract(kv.kind)) continue;
      latest = kv;
    }
    return latest;
  });
}

export function firstRow(options: Record<string, string>, table: string): MergeFunction {
  const ignore = ignoreDelete(options);
  return reducer((records) => {
    let first: KeyValue | null = null;
    for (const kv of records) {
      if (isRetract(kv.kind)) {
        if (ignore) continue;
        throw new FloeError(
          'Unsupported',
          `Paimon table ${table}: the first-row merge engine cannot accept DELETE/UPDATE_BEFORE records unless 'ignore-delete' is set`,
          { context: { table } },
        );
      }
      if (!first) first = kv;
    }
    return first;
  });
}

export function partialUpdate(
  fields: readonly PaimonField[],
  options: Record<string, string>,
  table: string,
): MergeFunction {
  const groups = Object.keys(options).filter((k) => k.startsWith('fields.') && k.endsWith('.sequence-group'));
  if (groups.length) {
    throw new FloeError(
      'Unsupported',
      `Paimon table ${table}: partial-update with sequence groups (${groups.join(', ')}) is not supported`,
      { context: { table, options: groups } },
    );
  }
  const ignore = ignoreDelete(options);
  const removeOnDelete = bool(options, 'partial-update.remove-record-on-delete');
  const n = fields.length;
  return reducer((records) => {
    let row: unknown[] = new Array(n).fill(null);
    let meetInsert = false;
    let notNullFilled = false;
    let deleteRow = false;
    let latest = records[0]!;
    for (const kv of records) {
      deleteRow = false;
      if (isRetract(kv.kind)) {
        if (!notNullFilled) {
          row = kv.value.slice();
          notNullFilled = true;
        }
        if (ignore) continue;
        latest = kv;
        if (removeOnDelete) {
          if (kv.kind === ROW_KIND_DELETE) {
            deleteRow = true;
            row = kv.value.slice();
          }
          continue;
        }
        throw new FloeError(
          'Unsupported',
          `Paimon table ${table}: partial-update cannot accept delete records; Paimon needs 'ignore-delete' or 'partial-update.remove-record-on-delete' for them`,
          { context: { table } },
        );
      }
      latest = kv;
      for (let i = 0; i < n; i++) {
        const v = kv.value[i];
        if (v !== null && v !== undefined) row[i] = v;
      }
      meetInsert = true;
      notNullFilled = true;
    }
    const kind = deleteRow || !meetInsert ? ROW_KIND_DELETE : ROW_KIND_INSERT;
    return { key: latest.key, sequenceNumber: latest.sequenceNumber, kind, value: row, level: latest.level };
  });
}

/** Aggregate function name per field, as `AggregateMergeFunction.getAggFuncName` picks it. */
export function aggregateFunctionName(
  field: string,
  options: Record<string, string>,
  primaryKeys: readonly string[],
): string {
  if (sequenceFields(options).includes(field)) return 'last_value';
  if (primaryKeys.includes(field)) return 'primary-key';
  return (
    options[`fields.${field}.aggregate-function`] ??
    options['fields.default-aggregate-function'] ??
    'last_non_null_value'
  );
}

export function aggregation(
  fields: readonly PaimonField[],
  primaryKeys: readonly string[],
  options: Record<string, string>,
): MergeFunction {
  const aggs: FieldAggregator[] = fields.map((f) =>
    createAggregator(aggregateFunctionName(f.name, options, primaryKeys), f.name, f.type, options),
  );
  const removeOnDelete = bool(options, 'aggregation.remove-record-on-delete');
  return reducer((records) => {
    for (const a of aggs) a.reset();
    let row: unknown[] = new Array(fields.length).fill(null);
    let deleteRow = false;
    for (const kv of records) {
      deleteRow = removeOnDelete && kv.kind === ROW_KIND_DELETE;
      if (deleteRow) {
        row = kv.value.slice();
        continue;
      }
      const retract = isRetract(kv.kind);
      for (let i = 0; i < aggs.length; i++) {
        row[i] = retract ? aggs[i]!.retract(row[i], kv.value[i]) : aggs[i]!.agg(row[i], kv.value[i]);
      }
    }
    const last = records[records.length - 1]!;
    return {
      key: last.key,
      sequenceNumber: last.sequenceNumber,
      kind: deleteRow ? ROW_KIND_DELETE : ROW_KIND_INSERT,
      value: row,
      level: last.level,
    };
  });
}

export type MergeEngineName = 'deduplicate' | 'first-row' | 'partial-update' | 'aggregation';

export function mergeEngineOf(options: Record<string, string>): string {
  return (options['merge-engine'] ?? 'deduplicate').trim().toLowerCase();
}

export function createMergeFunction(
  fields: readonly PaimonField[],
  primaryKeys: readonly string[],
  options: Record<string, string>,
  table: string,
): MergeFunction {
  const engine = mergeEngineOf(options);
  switch (engine) {
    case 'deduplicate':
      return deduplicate(options);
    case 'first-row':
      return firstRow(options, table);
    case 'partial-update':
      return partialUpdate(fields, options, table);
    case 'aggregation':
      return aggregation(fields, primaryKeys, options);
    default:
      throw new FloeError('Unsupported', `Paimon table ${table}: unknown merge-engine '${engine}'`, {
        context: { table, engine },
      });
  }
}
