/** Reading the changelog a compaction wrote, and applying a streaming consumer's changelog strictly. */
import path from 'node:path';
import { expect } from 'vitest';
import { canonicalLine, canonicalRow } from '../oracles/index.js';
import { openPaimonTable } from '../../connectors/paimon/index.js';
import { decodeSerializedRow } from '../../connectors/paimon/binary-row.js';
import { readManifest, readManifestList } from '../../connectors/paimon/manifest.js';
import { partitionPath } from '../../connectors/paimon/paths.js';
import { readKeyValues } from '../../connectors/paimon/scan.js';
import { partitionFields, trimmedPrimaryKeyFields } from '../../connectors/paimon/table.js';
import { TYPES } from './model.js';

const KINDS = ['+I', '-U', '+U', '-D'];

/** The changelog files of the latest snapshot, per key (`p|id`): the records' kinds and rows, in file order. */
export async function changelogByKey(loc: string): Promise<Map<string, string[]>> {
  const t = await openPaimonTable(loc);
  const out = new Map<string, string[]>();
  const list = t.snapshot!.changelogManifestList;
  if (!list) return out;
  const pTypes = partitionFields(t.schema).map((f) => f.type);
  for (const m of await readManifestList(t.io, loc, list)) {
    for (const e of await readManifest(t.io, loc, m.fileName)) {
      const partition = decodeSerializedRow(e.partition, pTypes, loc);
      const dir = partitionPath(t.schema.partitionKeys, pTypes, partition, t.schema.options);
      const file = path.join(loc, dir, `bucket-${e.bucket}`, e.file.fileName);
      expect(e.file.fileName.startsWith('changelog-'), e.file.fileName).toBe(true);
      const f = {
        meta: e.file,
        path: file,
        partition,
        partitionBytes: e.partition,
        bucket: e.bucket,
        totalBuckets: e.totalBuckets,
      };
      for (const kv of await readKeyValues(t, f, t.schema.fields, trimmedPrimaryKeyFields(t.schema), undefined, true)) {
        const row: Record<string, unknown> = {};
        t.schema.fields.forEach((c, i) => (row[c.name] = kv.value[i] ?? null));
        const k = `${row.p}|${row.id}`;
        (out.get(k) ?? out.set(k, []).get(k)!).push(`${KINDS[kv.kind]} ${canonicalLine(canonicalRow(TYPES, row))}`);
      }
    }
  }
  return out;
}

/**
 * Applies a changelog strictly: throws on a change that does not fit the state. `upsert`: the input
 * producer's changelog is the writes themselves (+U without -U), so +U may replace a present row.
 */
export function apply(state: Map<string, string>, rows: { kind: string; line: string }[], upsert = false): void {
  for (const { kind, line } of rows) {
    const r = JSON.parse(line) as { id: number; p: string };
    const k = `${r.p}|${r.id}`;
    if (kind === '+I' || kind === '+U') {
      if (state.has(k) && !(upsert && kind === '+U'))
        throw new Error(`changelog ${kind} ${line}: key ${k} is already present (duplicate)`);
      state.set(k, line);
    } else {
      if (state.get(k) !== line)
        throw new Error(`changelog ${kind} ${line}: state holds ${state.get(k) ?? 'nothing'} (gap)`);
      state.delete(k);
    }
  }
}
