/**
 * Builds a local Iceberg table with a recorded upsert history at a chosen cadence: every `everyMinutes` an
 * upsert sink commits fresh rows per region, and every second commit an equality delete + re-insert of
 * earlier keys (the Flink upsert pattern). Snapshot timestamps are set through a faked Date, so the
 * history spans real-looking hours while the test runs in seconds.
 */
import { vi } from 'vitest';
import { appendRows, createIcebergTable, deleteByEquality } from '../../../connectors/iceberg/write-table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { DEMO_FIELDS } from '../../../src/demo/seed.js';

const REGIONS = ['eu', 'us', 'apac'];

export interface UpsertHistory {
  commits: number;
  /** Keys live at the end, by "region|id". */
  liveKeys: number;
}

export async function writeUpsertHistory(
  location: string,
  o: { commits: number; everyMinutes: number; startMs: number; properties?: Record<string, string> },
): Promise<UpsertHistory> {
  const io = new FileIO();
  vi.useFakeTimers({ toFake: ['Date'] });
  try {
    vi.setSystemTime(o.startMs);
    await createIcebergTable(io, location, {
      fields: DEMO_FIELDS,
      partitionBy: ['region'],
      identifierFieldIds: [1, 2],
      ...(o.properties ? { properties: o.properties } : {}),
    });
    let nextId = 0n;
    const keys: [bigint, string][] = [];
    let commits = 0;
    for (let c = 0; c < o.commits; c++) {
      vi.setSystemTime(o.startMs + (c + 1) * o.everyMinutes * 60_000);
      const rows = Array.from({ length: 60 }, (_, i) => {
        const region = REGIONS[i % REGIONS.length]!;
        const id = nextId++;
        keys.push([id, region]);
        return { id, region, amount: '1.00', ts: BigInt(o.startMs) * 1000n, note: `commit ${c}` };
      });
      await appendRows(io, location, rows);
      commits++;
      if (c % 2 === 1) {
        const victims = keys.filter(([id]) => id % 7n === BigInt(c % 7)).slice(-12);
        vi.setSystemTime(o.startMs + (c + 1) * o.everyMinutes * 60_000 + 1000);
        await deleteByEquality(
          io,
          location,
          ['id', 'region'],
          victims.map(([id, r]) => [id, r]),
        );
        await appendRows(
          io,
          location,
          victims.map(([id, region]) => ({ id, region, amount: '2.00', ts: BigInt(o.startMs) * 1000n, note: 'upd' })),
        );
        commits += 2;
      }
    }
    return { commits, liveKeys: keys.length };
  } finally {
    vi.useRealTimers();
    io.destroy();
  }
}
