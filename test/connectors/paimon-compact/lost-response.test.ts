/**
 * Issue 9.1 for Paimon: the create-if-absent PUT of snapshot-N is applied but its answer is lost (a reset,
 * or the 412 the retry of the same PUT gets). floe must recognise snapshot-N as its own (its bytes, with
 * floe's uuid) — not rebase onto it, find its own inputs gone, abandon the compaction and delete the
 * manifests and data files snapshot-N references. When snapshot-N cannot be read back, the outcome is
 * unknown and every written file stays. (Needs ../shared/fixtures; fails loudly without it.)
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/index.js';
import { isCommitStateUnknown } from '../../../connectors/commit-state.js';
import { FileIO } from '../../../connectors/storage/file-io.js';
import { LocalObjectStore } from '../../../connectors/storage/local-store.js';
import { compactPaimon } from '../../../src/orchestration/compact-paimon.js';
import { LosingStore, loseFirst, type LostResponse } from '../iceberg-write/losing-store.js';
import { cleanup, copyFixture, rowsOf } from './helpers.js';

afterEach(cleanup);

function losingFileIO(table: string, store: LosingStore): FileIO {
  const files = new FileIO();
  files.mount(table, store);
  return files;
}

describe('Paimon compaction: a lost answer to the snapshot write', () => {
  it.each<LostResponse>(['retry-412', 'reset'])(
    '%s: snapshot-N is recognised as ours; rows and files intact',
    async (how) => {
      const t = copyFixture('pk_table_scan_and_read_mor');
      const rows = await rowsOf(t);
      const base = (await openPaimonTable(t)).snapshot!.id;
      const store = new LosingStore(new LocalObjectStore(t), {
        losePut: loseFirst(new RegExp(`snapshot/snapshot-${base + 1n}$`), how),
      });
      const report = await compactPaimon(t, { full: true, fileIO: losingFileIO(t, store) });
      expect(store.lost).toEqual([`snapshot/snapshot-${base + 1n}`]); // the fault fired
      expect(report.snapshotId).toBe(String(base + 1n));
      expect(report.commitAttempts).toBe(1);
      expect(existsSync(path.join(t, 'snapshot', `snapshot-${base + 2n}`))).toBe(false);
      const after = await openPaimonTable(t);
      expect(after.snapshot!.id).toBe(base + 1n);
      expect(after.snapshot!.commitKind).toBe('COMPACT');
      expect(await rowsOf(t)).toEqual(rows); // every manifest and data file snapshot-N names is there
    },
  );

  it('unreadable afterwards: commit state unknown, and the published snapshot stays readable', async () => {
    const t = copyFixture('pk_table_scan_and_read_mor');
    const rows = await rowsOf(t);
    const base = (await openPaimonTable(t)).snapshot!.id;
    const store: LosingStore = new LosingStore(new LocalObjectStore(t), {
      losePut: loseFirst(new RegExp(`snapshot/snapshot-${base + 1n}$`), 'reset'),
      failRead: (k) => store.lost.includes(k),
    });
    const e = await compactPaimon(t, { full: true, fileIO: losingFileIO(t, store) }).catch((x: unknown) => x);
    expect(isCommitStateUnknown(e)).toBe(true);
    // snapshot-N did land; nothing it references was deleted
    expect(JSON.parse(readFileSync(path.join(t, 'snapshot', `snapshot-${base + 1n}`), 'utf8')).commitKind).toBe(
      'COMPACT',
    );
    expect(await rowsOf(t)).toEqual(rows);
  });
});
