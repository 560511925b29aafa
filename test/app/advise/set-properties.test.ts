/**
 * The set-properties action behind `floe advise --apply`: a metadata-only commit through commitTransaction on
 * a real filesystem table. A lost race (another writer committed between floe's read and its publish) is
 * retried on the winner's metadata, so the writer's snapshot and the properties both survive; properties
 * already set commit nothing; the REST spelling of the update is the spec's.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openIcebergForWrite, requireCommitOps } from '../../../src/app/open-table.js';
import { setTableProperties } from '../../../connectors/iceberg/set-properties.js';
import { applyUpdates } from '../../../connectors/iceberg/table-update.js';
import { appendRows, createIcebergTable } from '../../../connectors/iceberg/write-table.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import type { CommitBase, TableOperations } from '../../../connectors/iceberg/transaction.js';
import { DEMO_FIELDS } from '../../../src/demo/seed.js';

const scratch = mkdtempSync(path.join(tmpdir(), 'floe-setprops-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const row = (id: number) => ({ id: BigInt(id), region: 'eu', amount: '1.00', ts: 0n, note: 'x' });
const versions = (t: string) => readdirSync(path.join(t, 'metadata')).filter((f) => f.endsWith('.metadata.json'));

async function table(name: string): Promise<string> {
  const loc = path.join(scratch, name);
  const io = new FileIO();
  await createIcebergTable(io, loc, { fields: DEMO_FIELDS, properties: { keep: 'me' } });
  await appendRows(io, loc, [row(1)]);
  io.destroy();
  return loc;
}

describe('setTableProperties', () => {
  it('a lost race is retried on the winner: its snapshot and the new properties both survive', async () => {
    const loc = await table('race');
    const opened = await openIcebergForWrite(loc, {});
    const ops = requireCommitOps(opened);
    let refreshes = 0;
    // the first refresh returns the current base, then another writer commits before floe publishes
    const racing: TableOperations = {
      refresh: async (): Promise<CommitBase> => {
        const base = await ops.refresh();
        if (refreshes++ === 0) {
          const io = new FileIO();
          await appendRows(io, loc, [row(2)]);
          io.destroy();
        }
        return base;
      },
      commit: (base, next, change) => ops.commit(base, next, change),
    };
    const r = await setTableProperties(racing, opened.files, { 'self-optimizing.minor.trigger.file-count': '6' });
    opened.files.destroy();
    expect(refreshes).toBe(2); // one lost race, one retry
    expect(r.metadataLocation).toBeDefined();
    const after = await openIcebergForWrite(loc, {});
    const md = after.table.metadata;
    after.files.destroy();
    expect(md.properties).toEqual({
      ...opened.table.metadata.properties,
      'self-optimizing.minor.trigger.file-count': '6',
    });
    expect(md.properties.keep).toBe('me');
    expect(md.snapshots).toHaveLength(2); // both appends, the racing one included
    expect(md.currentSnapshotId).toBe(md.snapshots[1]!.snapshotId);
  });

  it('properties that already have their value commit nothing', async () => {
    const loc = await table('noop');
    const before = versions(loc).length;
    const opened = await openIcebergForWrite(loc, {});
    const r = await setTableProperties(requireCommitOps(opened), opened.files, { keep: 'me' });
    opened.files.destroy();
    expect(r).toEqual({ changed: {}, metadataLocation: undefined });
    expect(versions(loc)).toHaveLength(before);
  });

  it('applyUpdates merges set-properties over the base properties and keeps everything else', () => {
    const base = { 'format-version': 2, properties: { a: '1', b: '2' }, 'last-updated-ms': 5, snapshots: [] };
    const next = applyUpdates(
      base,
      'file:///t/metadata/v1.metadata.json',
      [{ action: 'set-properties', updates: { b: '3', c: '4' } }],
      10,
    );
    expect(next.properties).toEqual({ a: '1', b: '3', c: '4' });
    expect(next.snapshots).toEqual([]);
    expect(base.properties).toEqual({ a: '1', b: '2' }); // the base is not modified
    expect(next['metadata-log']).toEqual([
      { 'timestamp-ms': 5, 'metadata-file': 'file:///t/metadata/v1.metadata.json' },
    ]);
  });
});
