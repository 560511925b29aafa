/**
 * Issue 29.1 + 29.2, the restart test on real processes: `floe serve` on four Iceberg tables is SIGKILLed
 * by its own kill point right after a compaction's commit is published (before its run is recorded, with
 * its table lease and possibly another job's still held). A new `floe serve` on the same state database
 * then: takes over the dead predecessor's leases at once (and says so), records 0 runs as failed or busy
 * because of them, and gives the committed-but-unrecorded snapshot its run row (reason `reconstructed`) —
 * every snapshot carrying floe's commit id has its run. Every table still holds exactly its rows.
 */
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileIO } from '../../connectors/storage/file-io.js';
import { appendRows, createIcebergTable } from '../../connectors/iceberg/write-table.js';
import { openIcebergTable } from '../../connectors/iceberg/table.js';
import { icebergRows, killedServe, startServe, until, type ServeProcess } from './support.js';

const TOKEN = 'restart-token-0123456789abcdef';
const NAMES = ['t0', 't1', 't2', 't3'];
let work: string;
let config: string;
const expected = new Map<string, string[]>();
let serve: ServeProcess | undefined;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'floe-serve-restart-'));
  const io = new FileIO();
  for (const n of NAMES) {
    const loc = path.join(work, n);
    await createIcebergTable(io, loc, {
      formatVersion: 2,
      fields: [
        { id: 1, name: 'id', required: false, type: { kind: 'primitive', name: 'long' } },
        { id: 2, name: 'region', required: false, type: { kind: 'primitive', name: 'string' } },
        { id: 3, name: 'qty', required: false, type: { kind: 'primitive', name: 'int' } },
      ],
    });
    const rows: string[] = [];
    for (let a = 0; a < 8; a++) {
      const batch = [0, 1, 2].map((i) => ({ id: BigInt(a * 10 + i), region: 'eu', qty: i }));
      await appendRows(io, loc, batch);
      rows.push(...batch.map((r) => `${r.id}|${r.region}|${r.qty}`));
    }
    expected.set(n, rows.sort());
  }
  io.destroy();
  config = path.join(work, 'floe.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      state: 'state/floe.db',
      concurrency: 2,
      tables: NAMES.map((n) => ({ name: n, location: path.join(work, n), jobs: { compact: 'every 1s' } })),
    }),
  );
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(work, { recursive: true, force: true });
});

async function floeSnapshots(n: string): Promise<string[]> {
  const t = await openIcebergTable(path.join(work, n));
  return t.metadata.snapshots
    .filter((s) => s.summary['floe.commit-id'] !== undefined)
    .map((s) => s.snapshotId.toString());
}

describe('floe serve after a SIGKILL', () => {
  it('takes over its dead predecessor’s leases, fails no run because of them, and reconstructs the unrecorded run', async () => {
    // the test's own appends (floe-written too) are from before the service knew the tables
    const appends = new Set((await Promise.all(NAMES.map(floeSnapshots))).flat());
    const killed = await killedServe(config, TOKEN, 'iceberg.commit.after-publish');
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(killed.stderr).toContain('FLOE_FAULT_KILL_AT=iceberg.commit.after-publish');
    const committedBeforeKill = (await Promise.all(NAMES.map(floeSnapshots))).flat().filter((id) => !appends.has(id));
    // the kill point fires after the first publish; a second table's compaction running beside it may have
    // published too before the process died: each of them must get its run row
    expect(committedBeforeKill.length).toBeGreaterThanOrEqual(1);

    serve = await startServe(config, { FLOE_API_TOKEN: TOKEN });
    const reconstructed = await until('the unrecorded run reconstructed', async () => {
      const l = serve!.lines.filter((x) => x.event === 'run-reconstructed');
      return l.length >= committedBeforeKill.length ? l : undefined;
    });
    expect(reconstructed.map((l) => String(l.snapshotId)).sort()).toEqual([...committedBeforeKill].sort());
    // every table compacted at least once by the new process
    await until(
      'every table compacted by the new process',
      async () =>
        NAMES.every((n) => serve!.lines.some((l) => l.event === 'job-finish' && l.table === n)) ? true : undefined,
      180_000,
    );
    const takeovers = serve.lines.filter(
      (l) => l.event === 'job-warning' && /took over the lease/.test(String(l.text)),
    );
    expect(takeovers.length, JSON.stringify(serve.lines.slice(-20))).toBeGreaterThan(0);
    expect(String(takeovers[0]!.text)).toMatch(/process \d+ on this host .* is gone/);
    await serve.stop();
    serve = undefined;

    const db = new Database(path.join(work, 'state/floe.db'), { readonly: true });
    try {
      const runs = db.prepare('SELECT table_name, outcome, reason, error, snapshot_ids FROM floe_runs').all() as {
        table_name: string;
        outcome: string;
        reason: string;
        error: string | null;
        snapshot_ids: string;
      }[];
      expect(runs.filter((r) => r.outcome === 'failed' || r.outcome === 'busy')).toEqual([]);
      expect(runs.filter((r) => /table busy/.test(r.error ?? ''))).toEqual([]);
      expect(runs.filter((r) => r.reason === 'reconstructed' && r.outcome === 'ok').length).toBe(
        committedBeforeKill.length,
      );
      for (const n of NAMES) {
        const recorded = new Set(
          runs.filter((r) => r.table_name === n).flatMap((r) => JSON.parse(r.snapshot_ids) as string[]),
        );
        for (const id of await floeSnapshots(n))
          if (!appends.has(id)) expect(recorded.has(id), `${n} snapshot ${id} has no run`).toBe(true);
      }
    } finally {
      db.close();
    }
    for (const n of NAMES) expect(await icebergRows(path.join(work, n))).toEqual(expected.get(n));
  }, 400_000);
});
