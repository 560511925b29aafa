/**
 * Dangling deletes: delete files that no live data file can still need (their data was rewritten with the
 * rows already removed, or deleted). They cost readers a lookup on every scan and keep storage alive, yet
 * Iceberg's own commits only drop them when their sequence number falls below the table's minimum
 * (iceberg.md §3.5). A delete is dangling here only when it applies to no live data file under the
 * spec's rules, with paths compared loosely (scheme and authority ignored) so a renamed-location table
 * never loses a delete it still needs.
 */
import type { DataFile, DeleteFile, PartitionSpec, TableModel } from '../../model/index.js';
import { partitionKey } from '../../model/index.js';
import { isUnpartitionedSpec } from '../core/planning/deletes.js';

/** `hdfs://nn:8020/a/b` and `/a/b` and `s3a://bucket/a/b` → `/a/b`-style keys for a loose comparison. */
function loosePath(p: string): string {
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)$/.exec(p);
  const rest = m ? m[1]! : p.replace(/^file:/, '');
  return rest.replace(/\/+/g, '/');
}

export function findDanglingDeletes(model: Pick<TableModel, 'specs' | 'dataFiles' | 'deleteFiles'>): DeleteFile[] {
  const specs: readonly PartitionSpec[] = model.specs;
  // the lowest data sequence number per partition, and per referenced path
  const minSeqByPartition = new Map<string, bigint>();
  const minSeqByPath = new Map<string, { seq: bigint; part: string }[]>();
  let minSeqAll: bigint | undefined;
  for (const d of model.dataFiles) {
    const k = partitionKey(d.specId, d.partition);
    const cur = minSeqByPartition.get(k);
    if (cur === undefined || d.dataSequenceNumber < cur) minSeqByPartition.set(k, d.dataSequenceNumber);
    if (minSeqAll === undefined || d.dataSequenceNumber < minSeqAll) minSeqAll = d.dataSequenceNumber;
    const lp = loosePath(d.path);
    const list = minSeqByPath.get(lp) ?? [];
    list.push({ seq: d.dataSequenceNumber, part: k });
    minSeqByPath.set(lp, list);
  }
  const needed = (del: DeleteFile): boolean => {
    const k = partitionKey(del.specId, del.partition);
    switch (del.content) {
      case 'equality-deletes': {
        const global = isUnpartitionedSpec(specs.find((s) => s.specId === del.specId));
        const min = global ? minSeqAll : minSeqByPartition.get(k);
        return min !== undefined && min < del.dataSequenceNumber;
      }
      case 'position-deletes':
      case 'deletion-vector': {
        if (del.referencedDataFile !== undefined) {
          return (minSeqByPath.get(loosePath(del.referencedDataFile)) ?? []).some(
            (x) => x.seq <= del.dataSequenceNumber,
          );
        }
        const min = minSeqByPartition.get(k);
        return min !== undefined && min <= del.dataSequenceNumber;
      }
    }
  };
  return model.deleteFiles.filter((d) => !needed(d));
}

export type { DataFile };
