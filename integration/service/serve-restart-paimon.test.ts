/**
 * Issue 29.2 for Paimon, on real processes: `floe serve` on a Paimon primary-key table written by Java
 * Paimon is SIGKILLed by its own kill point right after its compaction's snapshot is published, before the
 * run is recorded. A new `floe serve` on the same state database gives that snapshot (floe's `commitUser`)
 * its run row — outcome `ok`, reason `reconstructed`, format `paimon` — and says so; the snapshots of the
 * table's own writers (Java's commit users) get none. The table still holds exactly its rows.
 */
import Database from 'better-sqlite3';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileIO } from '../../connectors/storage/file-io.js';
import { listSnapshotIds, readSnapshot } from '../../connectors/paimon/metadata.js';
import { FIXTURES, killedServe, paimonRows, startServe, until, type ServeProcess } from './support.js';

const TOKEN = 'restart-token-0123456789abcdef';
let work: string;
let table: string;
let config: string;
let rowsBefore: string[];
let serve: ServeProcess | undefined;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'floe-serve-restart-paimon-'));
  table = path.join(work, 'pm/mor');
  // a real table written by Java Paimon whose level-0 files a full compaction merges (copied; fixtures never go
  // into the repo)
  cpSync(path.join(FIXTURES, 'paimon-cpp/pk_table_scan_and_read_mor'), table, { recursive: true });
  rowsBefore = await paimonRows(table);
  config = path.join(work, 'floe.yaml');
  writeFileSync(
    config,
    JSON.stringify({
      state: 'state/floe.db',
      tables: [{ name: 'mor', location: table, jobs: { compact: { schedule: 'every 1s', full: true } } }],
    }),
  );
}, 120_000);

afterAll(async () => {
  await serve?.stop();
  rmSync(work, { recursive: true, force: true });
});

/** Every snapshot of the table with its commit user. */
async function snapshotUsers(): Promise<{ id: string; user: string }[]> {
  const io = new FileIO();
  try {
    const out = [];
    for (const id of await listSnapshotIds(io, table))
      out.push({ id: id.toString(), user: (await readSnapshot(io, table, id)).commitUser });
    return out;
  } finally {
    io.destroy();
  }
}

describe('floe serve after a SIGKILL, Paimon', () => {
  it('reconstructs the run of the Paimon snapshot its killed predecessor committed, and only that one', async () => {
    const before = await snapshotUsers();
    expect(before.length).toBeGreaterThan(0);
    expect(before.filter((s) => s.user.startsWith('floe-'))).toEqual([]); // the fixture's writers are Java's

    const killed = await killedServe(config, TOKEN, 'paimon.commit.after-publish');
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(killed.stderr).toContain('FLOE_FAULT_KILL_AT=paimon.commit.after-publish');
    const known = new Set(before.map((s) => s.id));
    const committed = (await snapshotUsers()).filter((s) => !known.has(s.id));
    expect(committed.length).toBe(1);
    expect(committed[0]!.user).toMatch(/^floe-/);

    serve = await startServe(config, { FLOE_API_TOKEN: TOKEN });
    const reconstructed = await until('the unrecorded Paimon run reconstructed', async () => {
      const l = serve!.lines.filter((x) => x.event === 'run-reconstructed');
      return l.length > 0 ? l : undefined;
    });
    expect(reconstructed.map((l) => [l.table, l.format, l.snapshotId])).toEqual([['mor', 'paimon', committed[0]!.id]]);
    await serve.stop();
    serve = undefined;

    const db = new Database(path.join(work, 'state/floe.db'), { readonly: true });
    try {
      const runs = db
        .prepare('SELECT table_name, outcome, reason, format, snapshot_ids, warnings_json AS warnings FROM floe_runs')
        .all() as {
        table_name: string;
        outcome: string;
        reason: string;
        format: string;
        snapshot_ids: string;
        warnings: string | null;
      }[];
      const rebuilt = runs.filter((r) => r.reason === 'reconstructed');
      expect(rebuilt.map((r) => [r.table_name, r.outcome, r.format, JSON.parse(r.snapshot_ids)])).toEqual([
        ['mor', 'ok', 'paimon', [committed[0]!.id]],
      ]);
      expect(rebuilt[0]!.warnings).toContain(`commitUser ${committed[0]!.user}`);
      // every floe snapshot now has its run; none of Java's got one
      const recorded = new Set(runs.flatMap((r) => JSON.parse(r.snapshot_ids) as string[]));
      for (const s of await snapshotUsers()) {
        if (s.user.startsWith('floe-')) expect(recorded.has(s.id), `snapshot ${s.id} has no run`).toBe(true);
        else expect(recorded.has(s.id), `Java's snapshot ${s.id} got a run`).toBe(false);
      }
    } finally {
      db.close();
    }
    expect(await paimonRows(table)).toEqual(rowsBefore);
  }, 400_000);
});
