/**
 * Issue 15: an append table with deletion vectors is compacted (no longer refused); what floe cannot do
 * with DVs is still refused before anything is written, naming the option. Runs on paimon-cpp's
 * bucket-unaware append table (/work/shared/fixtures), with the DV options layered over its own.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { openPaimonTable } from '../../../connectors/paimon/table.js';
import { compactPaimon, renderPaimonPlan } from '../../../src/orchestration/compact-paimon.js';
import { cleanup, copyFixture, hasFixtures, rowsOf } from '../paimon-compact/helpers.js';

const APPEND = 'append_table_with_alter_table';
const DV = { 'deletion-vectors.enabled': 'true' };

describe('append tables with deletion vectors: what is compacted, what is refused', () => {
  afterAll(cleanup);
  it('needs the shared fixtures (/work/shared/fixtures/paimon-cpp)', () => expect(hasFixtures).toBe(true));

  it('deletion-vectors.enabled=true on an append table: --full compacts, rows unchanged', async () => {
    const t = copyFixture(APPEND);
    const rows = await rowsOf(t);
    const r = await compactPaimon(t, { full: true, options: DV });
    expect(r.snapshotId, renderPaimonPlan(r, true)).toBeDefined();
    expect(await rowsOf(t)).toEqual(rows);
    // no file had a DV: no DV index is written
    expect((await openPaimonTable(t)).indexEntries).toEqual([]);
  });

  it('refuses deletion-vectors.bitmap64 and sort compaction of a DV table, writing nothing', async () => {
    const t = copyFixture(APPEND);
    const before = (await openPaimonTable(t)).snapshot!.id;
    await expect(
      compactPaimon(t, { full: true, options: { ...DV, 'deletion-vectors.bitmap64': 'true' } }),
    ).rejects.toThrow(/deletion-vectors.bitmap64=true/);
    await expect(compactPaimon(t, { sort: { strategy: 'sort', sortOrder: 'key0' }, options: DV })).rejects.toThrow(
      /deletion-vectors.enabled=true; floe's sort compaction does not apply/,
    );
    expect((await openPaimonTable(t)).snapshot!.id).toBe(before);
  });
});
