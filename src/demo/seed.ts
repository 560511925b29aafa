/**
 * A demo warehouse on local disk: an Iceberg table that looks like a streaming upsert sink left it — many
 * small appends across partitions, and equality deletes from updates — so `floe demo` can show what
 * compaction does without any cloud or JVM.
 */
import path from 'node:path';
import { existsSync } from 'node:fs';
import type { Field } from '../../model/index.js';
import { appendRows, createIcebergTable, deleteByEquality } from '../../connectors/iceberg/write-table.js';
import { FileIO } from '../../connectors/storage/file-io.js';

export const DEMO_FIELDS: Field[] = [
  { id: 1, name: 'id', required: true, type: { kind: 'primitive', name: 'long' } },
  { id: 2, name: 'region', required: true, type: { kind: 'primitive', name: 'string' } },
  { id: 3, name: 'amount', required: false, type: { kind: 'primitive', name: 'decimal', precision: 18, scale: 2 } },
  { id: 4, name: 'ts', required: false, type: { kind: 'primitive', name: 'timestamptz' } },
  { id: 5, name: 'note', required: false, type: { kind: 'primitive', name: 'string' } },
];

const REGIONS = ['eu', 'us', 'apac'];

/** Deterministic pseudo-random numbers, so every demo run builds the same table. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface SeedResult {
  location: string;
  created: boolean;
  commits: number;
  expectedRows: number;
}

export async function seedDemoTable(warehouse: string, commits = 30, rowsPerCommit = 300): Promise<SeedResult> {
  const location = path.resolve(warehouse, 'demo', 'events');
  if (existsSync(path.join(location, 'metadata'))) return { location, created: false, commits: 0, expectedRows: -1 };
  const io = new FileIO();
  await createIcebergTable(io, location, { fields: DEMO_FIELDS, partitionBy: ['region'], identifierFieldIds: [1, 2] });
  const rand = rng(42);
  let nextId = 0;
  const live = new Map<string, bigint>(); // "region|id" → id
  const t0 = Date.UTC(2026, 10, 1) * 1000;
  let n = 0;
  for (let c = 0; c < commits; c++) {
    const rows = Array.from({ length: rowsPerCommit }, () => {
      const region = REGIONS[Math.floor(rand() * REGIONS.length)]!;
      const id = BigInt(nextId++);
      live.set(`${region}|${id}`, id);
      return {
        id,
        region,
        amount: (rand() * 10000).toFixed(2),
        ts: BigInt(t0 + c * 60_000_000 + Math.floor(rand() * 60_000_000)),
        note: `commit ${c}`,
      };
    });
    await appendRows(io, location, rows);
    n++;
    // every third commit updates some earlier rows, as an upsert sink does: equality delete + re-insert
    if (c % 3 === 2) {
      const victims = [...live.entries()].filter(() => rand() < 0.05).slice(0, 40);
      await deleteByEquality(
        io,
        location,
        ['id', 'region'],
        victims.map(([k, id]) => [id, k.split('|')[0]]),
      );
      await appendRows(
        io,
        location,
        victims.map(([k, id]) => ({
          id,
          region: k.split('|')[0],
          amount: '0.00',
          ts: BigInt(t0 + c * 60_000_000),
          note: `updated in ${c}`,
        })),
      );
      n += 2;
    }
  }
  return { location, created: true, commits: n, expectedRows: live.size };
}
